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
//   node person.js DATADIR URL PASSWORD OUT rows SYNCID
//     reads back every live row: OUT gets [{id, account, importId, date,
//     amount, cleared, reconciled, transferId, payee, category, notes}]
//     with the payee's and the category's names
//   node person.js DATADIR URL PASSWORD OUT category SYNCID IMPORTID NAME NOTES
//     sets the row's category (made in a group "Everyday" when missing)
//     and notes, as the person would
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
  } else if (cmd === 'rows') {
    const [syncId] = args;
    await api.downloadBudget(syncId);
    const payees = new Map((await api.getPayees()).map(p => [p.id, p.name]));
    const cats = new Map((await api.getCategories()).map(c => [c.id, c.name]));
    const {data} = await api.aqlQuery(api.q('transactions')
      .select(['id', 'account', 'imported_id', 'date', 'amount', 'cleared', 'reconciled', 'transfer_id', 'payee', 'category', 'notes'])
      .options({splits: 'none'}));
    result = data.map(r => ({id: r.id, account: r.account, importId: r.imported_id || '', date: r.date, amount: r.amount,
      cleared: !!r.cleared, reconciled: !!r.reconciled, transferId: r.transfer_id || '',
      payee: payees.get(r.payee) || '', category: cats.get(r.category) || '', notes: r.notes || ''}));
  } else if (cmd === 'category') {
    const [syncId, importId, name, notes] = args;
    await api.downloadBudget(syncId);
    const id = await findRow(importId);
    let cat = (await api.getCategories()).find(c => c.name === name);
    let catId = cat && cat.id;
    if (!catId) {
      let group = (await api.getCategoryGroups()).find(g => g.name === 'Everyday' && !g.is_income);
      const groupId = group ? group.id : await api.createCategoryGroup({name: 'Everyday'});
      catId = await api.createCategory({name, group_id: groupId});
    }
    await api.updateTransaction(id, {category: catId, notes});
    // It resolves before the change is applied: wait until it is.
    for (;;) {
      const {data} = await api.aqlQuery(api.q('transactions').filter({id}).select(['category']));
      if (data[0].category === catId) break;
      await new Promise(r => setTimeout(r, 20));
    }
    await api.sync();
    result = {id};
  } else {
    throw new Error('unknown command ' + cmd);
  }
  await api.shutdown();
  fs.writeFileSync(out, JSON.stringify(result));
})().catch(err => {
  console.error(err);
  process.exit(1);
});
