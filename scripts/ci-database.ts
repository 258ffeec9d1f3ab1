/**
 * Creates or drops a scratch database on the PostgreSQL server CI runs against.
 * Usage: tsx scripts/ci-database.ts create|drop <name>  (server URL from PG_ADMIN_URL).
 */
import pg from 'pg';

const [action, name] = process.argv.slice(2);
const adminUrl = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
if (!['create', 'drop'].includes(action ?? '') || !/^[a-z_][a-z0-9_]{0,62}$/.test(name ?? '')) {
  console.error('usage: tsx scripts/ci-database.ts create|drop <lower_case_name>');
  process.exit(2);
}
const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
try {
  await client.connect();
} catch (error) {
  console.error(`PostgreSQL is not reachable at ${adminUrl}: ${(error as Error).message}`);
  console.error('CI runs the suite a second time against a real PostgreSQL server; start it (pg_ctlcluster ... start) and retry.');
  process.exit(1);
}
try {
  if (action === 'create') {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  } else {
    await client.query(`drop database if exists ${name} with (force)`);
  }
  console.log(`${action === 'create' ? 'created' : 'dropped'} database ${name}`);
} finally {
  await client.end();
}
