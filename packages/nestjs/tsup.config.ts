import { packageBuild } from '../../tsup.base'

export default packageBuild({ external: [/^@nestjs\//, 'reflect-metadata', 'rxjs'] })
