// Lint: typescript-eslint's recommended rules; generated code and fixtures are not linted.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'scratch/', 'src/graphql/generated/', 'test/fixtures/', 'coverage/', 'dist/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
);
