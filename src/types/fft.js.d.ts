/** Types of fft.js 4 (the package ships none): the radix-4 FFT the re-capture evidence uses (src/engines/recapture-evidence.ts). */
declare module 'fft.js' {
  /** A complex FFT of one power-of-two size; arrays interleave real and imaginary parts. */
  export default class FFT {
    constructor(size: number);
    readonly size: number;
    createComplexArray(): number[];
    realTransform(output: number[], input: ArrayLike<number>): void;
    completeSpectrum(spectrum: number[]): void;
    transform(output: number[], input: ArrayLike<number>): void;
  }
}
