import { defineConfig } from '@hey-api/openapi-ts'

// scripts/client.sh writes openapi.json from the backend (upgradelab.main:app.openapi()) and runs this.
export default defineConfig({
  input: './openapi.json',
  output: { path: './src/client' },
  plugins: [
    '@hey-api/client-fetch',
    // enums as const objects too: the UI reads FinalJobStatus's values at run time
    { name: '@hey-api/typescript', enums: 'javascript' },
    '@hey-api/sdk',
  ],
})
