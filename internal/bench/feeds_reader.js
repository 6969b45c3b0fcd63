// bench feeds' second reader of an Actual budget: another client of the
// app, with a copy of the budget of its own.
//
//   node feeds_reader.cjs DATADIR URL PASSWORD SYNCID
//
// It prints "BENCH-READY" once the budget is loaded, then reads bank
// transaction ids on stdin, one a line: for each, it syncs with the server
// until a row with that imported_id is there, then prints "BENCH-SEEN ID".
// The API logs to stdout too: only lines starting BENCH- are answers.
'use strict';
const fs = require('fs');
const readline = require('readline');
const api = require('@actual-app/api');

const [dataDir, serverURL, password, syncId] = process.argv.slice(2);

(async () => {
  fs.mkdirSync(dataDir, {recursive: true});
  await api.init({dataDir, serverURL, password});
  await api.downloadBudget(syncId);
  process.stdout.write('BENCH-READY\n');
  const lines = readline.createInterface({input: process.stdin});
  for await (const id of lines) {
    for (;;) {
      try {
        await api.sync();
      } catch (err) {
        process.stdout.write('BENCH-SYNC-ERROR ' + String(err && err.message) + '\n');
      }
      const {data} = await api.aqlQuery(api.q('transactions').filter({imported_id: id}).select(['id']));
      if (data.length > 0) break;
      await new Promise(r => setTimeout(r, 100));
    }
    process.stdout.write('BENCH-SEEN ' + id + '\n');
  }
  await api.shutdown();
})().catch(err => {
  console.error(err);
  process.exit(1);
});
