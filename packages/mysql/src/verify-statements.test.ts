// The statements of an uncached verification on MariaDB or MySQL (mysql2), on tables of the
// test's own, dropped after.
import { mysqlDialect } from '@keyward/sql'
import mysql from 'mysql2/promise'
import { describe } from 'vitest'
import { describeVerificationStatements } from '../../sql/src/test/verification-statements.js'
import { mysqlDatabase } from './database.js'
import { MYSQL_URL } from './test/harness.js'

const tablePrefix = `kwstmt_${process.pid}_${Date.now().toString(36)}_`

describe.skipIf(!MYSQL_URL)('on MariaDB or MySQL (set KEYWARD_MYSQL_URL to run)', () => {
  describeVerificationStatements({
    dialect: mysqlDialect,
    tablePrefix,
    open: async () => {
      const pool = mysql.createPool(MYSQL_URL as string)
      return {
        db: mysqlDatabase(pool),
        close: async () => {
          const [rows] = await pool.query('SHOW TABLES LIKE ?', [`${tablePrefix.replaceAll('_', '\\_')}%`])
          for (const row of rows as Record<string, string>[])
            await pool.query(`DROP TABLE ${Object.values(row)[0]}`)
          await pool.end()
        },
      }
    },
  })
})
