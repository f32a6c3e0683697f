import js from '@eslint/js'
import globals from 'globals'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // src/client is generated (scripts/client.sh) and never edited by hand.
  { ignores: ['dist', 'node_modules', 'src/client'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      ecmaVersion: 2022,
      globals: globals.browser,
    },
    plugins: {
      'react-hooks': reactHooks,
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // A page imports components (src/components), query options (src/queries) and the rest of src, never
  // another page: a view two pages show lives in components/. Outside src/pages only src/App.tsx and
  // src/main.tsx import pages (and tests that render one).
  {
    files: ['src/pages/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(pages/|[A-Z]\\w*Page(/|$))',
              message: 'A page never imports another page: move the shared view to src/components/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/pages/**', 'src/App.tsx', 'src/main.tsx', 'src/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.{1,2}/)+pages/',
              message: 'Components, queries and charts sit below the pages: they never import one.',
            },
          ],
        },
      ],
    },
  },
)
