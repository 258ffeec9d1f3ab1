/** Unix time in whole seconds, the spec's timestamp format. */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** The current Unix time in whole seconds. */
export function nowSeconds(): number {
  return unixSeconds(new Date());
}
