// The person at Actual, for the tests: a second @actual-app/api client
// with a data directory of its own.
//
//   node person.js DATADIR URL PASSWORD OUT budget NAME ACCOUNT...
//     makes a budget (runImport) with those accounts; OUT gets
//     {"syncId": ..., "accounts": {NAME: ID}}
//   node person.js DATADIR URL PASSWORD OUT delete SYNCID IMPORTID
//     deletes the row with that import id, as the person would
//   node person.js DATADIR URL PASSWORD OUT reconcile SYNCID IMPORTID
//     marks it reconciled
//   node person.js DATADIR URL PASSWORD OUT half-transfer SYNCID FROM TO IMPORTID AMOUNT DATE
//     makes a transfer as a feed that died half-way would have left it:
//     the other leg as Actual makes it (no import id, not cleared)
'use strict';
const fs = require('fs');
const api = require('@actual-app/api');

const [dataDir, serverURL, password, out, cmd, ...args] = process.argv.slice(2);

async function findRow(importId) {
  const {data} = await api.aqlQuery(api.q('transactions').filter({imported_id: importId}).select(['id']));
  if (data.length !== 1) throw new Error(`${data.length} rows with import id ${importId}`);
  return data[0].id;
}

(async () => {
  fs.mkdirSync(dataDir, {recursive: true});
  await api.init({dataDir, serverURL, password});
  let result = null;
  if (cmd === 'budget') {
    const [name, ...accounts] = args;
    const ids = {};
    await api.runImport(name, async () => {
      for (const a of accounts) ids[a] = await api.createAccount({name: a, offbudget: false}, 0);
    });
    const b = (await api.getBudgets()).find(x => x.name === name && x.groupId);
    result = {syncId: b.groupId, accounts: ids};
  } else if (cmd === 'delete' || cmd === 'reconcile') {
    const [syncId, importId] = args;
    await api.downloadBudget(syncId);
    const id = await findRow(importId);
    if (cmd === 'delete') await api.deleteTransaction(id);
    else await api.updateTransaction(id, {reconciled: true});
    // Both resolve before the change is applied: wait until it is.
    for (;;) {
      const {data} = await api.aqlQuery(api.q('transactions').filter({id}).select(['id', 'reconciled']));
      if (cmd === 'delete' ? data.length === 0 : data[0].reconciled) break;
      await new Promise(r => setTimeout(r, 20));
    }
    await api.sync();
    result = {id};
  } else if (cmd === 'half-transfer') {
    const [syncId, from, to, importId, amount, date] = args;
    await api.downloadBudget(syncId);
    const payee = (await api.getPayees()).find(p => p.transfer_acct === to);
    await api.addTransactions(from, [{imported_id: importId, date, amount: Number(amount), cleared: true, payee: payee.id}], {runTransfers: true});
    await api.sync();
    result = {id: await findRow(importId)};
  } else {
    throw new Error('unknown command ' + cmd);
  }
  await api.shutdown();
  fs.writeFileSync(out, JSON.stringify(result));
})().catch(err => {
  console.error(err);
  process.exit(1);
});
