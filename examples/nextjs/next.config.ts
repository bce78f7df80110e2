import type { NextConfig } from 'next'

const config: NextConfig = {
  // No ESLint in this example: Biome lints the repository.
  eslint: { ignoreDuringBuilds: true },
}

export default config
