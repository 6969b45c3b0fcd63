// bankmirror's Actual Budget client: runs @actual-app/api for one feed
// session. bankmirror starts it with Node, its working directory the feed's
// directory (where `bankmirror feeds setup` installed @actual-app/api).
//
// Protocol: one JSON object a line. Requests come in on fd 3
// ({"id":N,"op":"...","args":{...}}), answers go out on fd 4
// ({"id":N,"result":...} or {"id":N,"error":{"message":"...","code":"..."}}),
// one request at a time, in order. The first line out (id 0) says which
// node and which @actual-app/api this is. stdout and stderr are the API's
// log; nothing of the protocol is written there. fd 5 is the feed
// directory's lock, held by this process for its life (never read).
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

const REQ_FD = 3;
const RESP_FD = 4;
const MIN_NODE = 22;

function reply(msg) {
  const buf = Buffer.from(JSON.stringify(msg) + '\n');
  let off = 0;
  while (off < buf.length) off += fs.writeSync(RESP_FD, buf, off, buf.length - off);
}

// Error codes the Go side maps: unavailable, not-installed, node-too-old,
// version-mismatch, budget-not-found, missing-account, protocol, bad-password,
// not-actual.
class CodedError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const NETWORK = /network-failure|no-server|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|fetch failed|socket hang up/i;

// loginError says which of the feed's settings a failed login points at:
// the API says "Authentication failed: " and the server's reason, or the
// page an address that is not Actual's answered.
function loginError(err, serverURL) {
  const d = describe(err);
  if (d.code === 'unavailable') return new CodedError('unavailable', `${serverURL}: ${d.message}`);
  if (/invalid-password/.test(d.message)) return new CodedError('bad-password', `the actual server at ${serverURL} refused the password`);
  if (/</.test(d.message)) return new CodedError('not-actual', `${serverURL} does not answer as an actual server (it sent a web page)`);
  return err;
}

function describe(err) {
  if (err instanceof CodedError) return {message: err.message, code: err.code};
  const message = String((err && (err.message || err.reason)) || err);
  const code = String((err && (err.code || err.reason)) || '');
  if (NETWORK.test(code) || NETWORK.test(message) || (err && err.cause && NETWORK.test(String(err.cause.code || err.cause.message)))) {
    return {message, code: 'unavailable'};
  }
  return {message, code};
}

const major = Number(process.versions.node.split('.')[0]);
let api = null;
let apiVersion = '';
let apiError = '';
try {
  const pkg = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'node_modules', '@actual-app', 'api', 'package.json'), 'utf8'));
  apiVersion = pkg.version;
  if (major >= MIN_NODE) api = require(path.join(process.cwd(), 'node_modules', '@actual-app', 'api'));
} catch (err) {
  apiError = String(err && err.message || err);
}
reply({id: 0, result: {node: process.versions.node, api: apiVersion, apiError}});

let lib = null; // what api.init returns: send reaches the handlers directly
let opened = false;
let writes = false;

const FIELDS = ['id', 'account', 'imported_id', 'date', 'amount', 'cleared', 'reconciled', 'transfer_id', 'payee', 'category', 'notes'];

async function query(q) {
  return (await api.aqlQuery(q)).data;
}

// inAccount is the key of byImportID's map: a row of an import id counts
// in its own account only (another feed may feed the same bank account
// into another account).
function inAccount(account, importId) {
  return account + '/' + importId;
}

// byImportID reads the rows holding these import ids, those the person
// deleted too (withDead), alive ones first, by inAccount.
async function byImportID(ids) {
  const found = new Map();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await query(api.q('transactions')
      .filter({imported_id: {$oneof: chunk}})
      .select(FIELDS.concat(['tombstone']))
      .options({splits: 'none'})
      .withDead());
    for (const r of rows) {
      const k = inAccount(r.account, r.imported_id);
      const had = found.get(k);
      if (!had || (had.tombstone && !r.tombstone)) found.set(k, r);
    }
  }
  return found;
}

async function byID(ids) {
  const found = new Map();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await query(api.q('transactions')
      .filter({id: {$oneof: ids.slice(i, i + 500)}})
      .select(FIELDS)
      .options({splits: 'none'}));
    for (const r of rows) found.set(r.id, r);
  }
  return found;
}

// batch writes through the handler the app itself uses, which resolves
// once the change is applied (the API's updateTransaction and
// deleteTransaction resolve before: a write started meanwhile can lose a
// transfer's other leg).
async function batch(change) {
  writes = true;
  const res = await lib.send('transactions-batch-update', Object.assign({runTransfers: false, learnCategories: false}, change));
  if (res && res.errors && res.errors.length) throw new Error('batch update: ' + res.errors.map(e => e.message || String(e)).join('; '));
  return res;
}

// sync pushes what was written; the first sync after a long import can
// fail with network-failure, so it is tried twice.
async function sync() {
  try {
    await api.sync();
  } catch (err) {
    await api.sync();
  }
}

const ops = {
  async open({dataDir, serverURL, password, budget}) {
    if (major < MIN_NODE) throw new CodedError('node-too-old', `node ${process.versions.node} is older than ${MIN_NODE}`);
    if (!api) throw new CodedError('not-installed', '@actual-app/api is not installed' + (apiError ? ': ' + apiError.split('\n')[0] : ''));
    fs.mkdirSync(dataDir, {recursive: true, mode: 0o700});
    try {
      lib = await api.init({dataDir, serverURL, password});
    } catch (err) {
      throw loginError(err, serverURL);
    }
    opened = true;
    const sv = await api.getServerVersion();
    if (sv.error) throw new CodedError('unavailable', 'server version: ' + sv.error);
    if (sv.version !== apiVersion) {
      throw new CodedError('version-mismatch', `the server is ${sv.version}, the installed @actual-app/api ${apiVersion}`);
    }
    const budgets = await api.getBudgets();
    const remote = budgets.filter(b => b.state === 'remote' || b.cloudFileId);
    let match = remote.filter(b => b.groupId === budget || b.cloudFileId === budget);
    if (match.length === 0) match = remote.filter(b => b.name === budget);
    const groups = [...new Set(match.map(b => b.groupId))];
    if (groups.length !== 1) {
      const names = [...new Map(remote.map(b => [b.groupId, `"${b.name}" (${b.groupId})`])).values()];
      const why = groups.length === 0 ? 'no budget' : 'more than one budget';
      throw new CodedError('budget-not-found', `${why} "${budget}" on the server; it has: ${names.join(', ') || 'none'}`);
    }
    try {
      await api.downloadBudget(groups[0]);
    } catch (err) {
      // With a local copy, downloadBudget loads it and syncs: a copy
      // holding writes the server has not had (a session that ended
      // before its sync) can fail that sync like a long import's first
      // one. Once more; then the copy is dropped and the budget
      // downloaded afresh (what it held that the server has not is not
      // recorded in the mirror either, so the engine writes it again).
      const local = budgets.filter(b => b.groupId === groups[0] && b.id && !b.state);
      if (local.length === 0) throw err;
      try {
        await api.sync();
      } catch (again) {
        // Only when the server answers is the copy to blame: a server
        // that is down keeps the copy for the next try.
        const probe = await api.getServerVersion().catch(e => ({error: String(e && e.message || e)}));
        if (probe.error) throw again;
        console.error('bankmirror: the local copy of the budget would not sync (' + String(again && again.message || again) + '): downloading it afresh');
        try { await lib.send('close-budget'); } catch (e) { /* dropped anyway */ }
        for (const b of local) fs.rmSync(path.join(dataDir, b.id), {recursive: true, force: true});
        await api.downloadBudget(groups[0]);
      }
    }
    return {syncId: groups[0], name: match[0].name, server: sv.version};
  },

  async accounts() {
    return (await api.getAccounts()).filter(a => !a.closed).map(a => ({id: a.id, name: a.name}));
  },

  async categories() {
    const groups = await api.getCategoryGroups();
    const out = [];
    for (const g of groups) for (const c of (g.categories || [])) out.push({id: c.id, name: c.name, group: g.name});
    return out;
  },

  async rows({accounts, since}) {
    if (!accounts || accounts.length === 0) return [];
    const payees = new Map((await api.getPayees()).map(p => [p.id, p.name]));
    const conds = [{account: {$oneof: accounts}}];
    if (since) conds.push({date: {$gte: since}});
    const rows = await query(api.q('transactions').filter({$and: conds}).select(FIELDS).options({splits: 'none'}));
    return rows.map(r => ({
      id: r.id, account: r.account, importId: r.imported_id || '', date: r.date, amount: r.amount,
      cleared: !!r.cleared, reconciled: !!r.reconciled, transferId: r.transfer_id || '',
      payee: payees.get(r.payee) || '', category: r.category || '', notes: r.notes || '',
    }));
  },

  async create({rows}) {
    const open = new Set((await api.getAccounts()).filter(a => !a.closed).map(a => a.id));
    for (const r of rows) {
      for (const acct of [r.account, r.transferAccount]) {
        if (acct && !open.has(acct)) throw new CodedError('missing-account', `no open account ${acct} in the budget (bank transaction ${r.importId})`);
      }
    }
    const transferPayee = new Map();
    for (const p of await api.getPayees()) if (p.transfer_acct) transferPayee.set(p.transfer_acct, p.id);

    const ids = rows.flatMap(r => r.transferImportId ? [r.importId, r.transferImportId] : [r.importId]);
    const have = await byImportID(ids);
    const created = {};
    const fresh = new Map(); // account (and transfer or not) -> rows to add
    const legsToFind = []; // rows whose other leg needs its import id and cleared
    const asLeg = new Set(); // import ids a transfer in this batch makes as its other leg
    for (const r of rows) {
      if (asLeg.has(r.importId)) continue;
      if (r.transferImportId) asLeg.add(r.transferImportId);
      // A row the person deleted does not count: the engine creates only
      // what it has not mapped, so this is a retry after a crash or the
      // person's own --restore.
      const h = have.get(inAccount(r.account, r.importId));
      if (h && !h.tombstone) {
        created[r.importId] = h.id;
        if (r.transferImportId) legsToFind.push(r);
        continue;
      }
      const other = r.transferImportId && have.get(inAccount(r.transferAccount, r.transferImportId));
      let payee = null;
      if (other && !other.tombstone) {
        // The other leg is in the budget already, as a row of its own
        // (fed before its account was): this one is made as a row of its
        // own too, not a second transfer.
        created[r.transferImportId] = other.id;
      } else if (r.transferAccount) {
        payee = transferPayee.get(r.transferAccount);
        if (!payee) throw new CodedError('missing-account', `no transfer payee for account ${r.transferAccount}`);
      }
      const t = {imported_id: r.importId, date: r.date, amount: r.amount, cleared: !!r.cleared, notes: r.notes || null};
      if (payee) t.payee = payee; else t.payee_name = r.payee || '';
      if (r.category && !payee) t.category = r.category;
      // Transfers go apart: only they need the app's transfer handling.
      const key = r.account + (payee ? ' transfer' : '');
      if (!fresh.has(key)) fresh.set(key, {account: r.account, transfer: !!payee, txs: []});
      fresh.get(key).txs.push(t);
      if (payee) legsToFind.push(r);
    }
    for (const {account, transfer, txs} of fresh.values()) {
      for (let i = 0; i < txs.length; i += 1000) {
        writes = true;
        await api.addTransactions(account, txs.slice(i, i + 1000), {runTransfers: transfer, learnCategories: false});
      }
    }
    const now = await byImportID(rows.map(r => r.importId));
    for (const r of rows) {
      const n = now.get(inAccount(r.account, r.importId));
      if (n && !n.tombstone) created[r.importId] = n.id;
    }
    // The app makes a transfer's other leg with no import id and
    // cleared=false: give it its own bank leg's.
    const legUpdates = [];
    if (legsToFind.length) {
      const legs = await byID(legsToFind.map(r => now.get(inAccount(r.account, r.importId))).filter(n => n && n.transfer_id && !n.tombstone).map(n => n.transfer_id));
      const otherHave = await byImportID(legsToFind.map(r => r.transferImportId));
      for (const r of legsToFind) {
        const n = now.get(inAccount(r.account, r.importId));
        const leg = n && legs.get(n.transfer_id);
        if (!leg) {
          const o = otherHave.get(inAccount(r.transferAccount, r.transferImportId));
          if (o) created[r.transferImportId] = o.id;
          continue;
        }
        created[r.transferImportId] = leg.id;
        if (leg.imported_id !== r.transferImportId || !!leg.cleared !== !!r.transferCleared) {
          legUpdates.push({id: leg.id, imported_id: r.transferImportId, cleared: !!r.transferCleared});
        }
      }
    }
    for (let i = 0; i < legUpdates.length; i += 1000) await batch({updated: legUpdates.slice(i, i + 1000)});
    return created;
  },

  async update({facts}) {
    const cur = await byID(facts.map(f => f.id));
    const updated = [];
    for (const f of facts) {
      const r = cur.get(f.id);
      if (!r || r.reconciled) continue; // deleted by the person, or reconciled: never changed
      const u = {id: f.id};
      if (r.amount !== f.amount) u.amount = f.amount;
      if (r.date !== f.date) u.date = f.date;
      if (!!r.cleared !== !!f.cleared) u.cleared = !!f.cleared;
      if (Object.keys(u).length > 1) updated.push(u);
    }
    for (let i = 0; i < updated.length; i += 1000) await batch({updated: updated.slice(i, i + 1000)});
    return updated.length;
  },

  async delete({ids}) {
    const cur = await byID(ids);
    const all = new Set();
    for (const id of ids) {
      const r = cur.get(id);
      if (!r) continue;
      all.add(id);
      if (r.transfer_id) all.add(r.transfer_id);
    }
    const gone = [...all].map(id => ({id}));
    for (let i = 0; i < gone.length; i += 1000) await batch({deleted: gone.slice(i, i + 1000)});
    return gone.length;
  },

  // link makes pairs of rows one transfer each, as the app links them:
  // each row's payee becomes the other account's transfer payee and its
  // transfer_id the other row, its category none; import ids and cleared
  // stay. A leg the app made earlier for either row (no import id) goes.
  async link({pairs}) {
    const cur = await byID(pairs.flatMap(p => [p.id, p.otherId]));
    const transferPayee = new Map();
    for (const p of await api.getPayees()) if (p.transfer_acct) transferPayee.set(p.transfer_acct, p.id);
    const updated = [];
    const stale = [];
    for (const p of pairs) {
      const a = cur.get(p.id), b = cur.get(p.otherId);
      if (!a || !b) throw new Error(`no row ${a ? p.otherId : p.id} to link`);
      if (a.transfer_id === b.id && b.transfer_id === a.id) continue;
      for (const [x, y] of [[a, b], [b, a]]) {
        const payee = transferPayee.get(y.account);
        if (!payee) throw new CodedError('missing-account', `no transfer payee for account ${y.account}`);
        if (x.transfer_id && x.transfer_id !== y.id) stale.push(x.transfer_id);
        updated.push({id: x.id, payee, transfer_id: y.id, category: null});
      }
    }
    if (stale.length) {
      const old = await byID(stale);
      const gone = [...old.values()].filter(r => !r.imported_id).map(r => ({id: r.id}));
      if (gone.length) await batch({deleted: gone});
    }
    for (let i = 0; i < updated.length; i += 1000) await batch({updated: updated.slice(i, i + 1000)});
    return {};
  },

  // sync pushes what was written since the last sync.
  async sync() {
    if (writes) await sync();
    writes = false;
    return null;
  },

  // close syncs what was written (shutdown swallows sync errors, so sync
  // first) and shuts the API down.
  async close() {
    if (!opened) return null;
    let syncErr = null;
    try {
      if (writes) await sync();
    } catch (err) {
      syncErr = err;
    }
    opened = false;
    await api.shutdown();
    if (syncErr) throw syncErr;
    return null;
  },
};

const rl = readline.createInterface({input: fs.createReadStream(null, {fd: REQ_FD}), crlfDelay: Infinity});
let chain = Promise.resolve();
rl.on('line', line => {
  chain = chain.then(async () => {
    let req;
    try {
      req = JSON.parse(line);
    } catch (err) {
      reply({id: -1, error: {message: 'bad request: ' + err.message, code: 'protocol'}});
      return;
    }
    const op = ops[req.op];
    if (!op) {
      reply({id: req.id, error: {message: 'unknown op ' + req.op, code: 'protocol'}});
      return;
    }
    try {
      const result = await op(req.args || {});
      reply({id: req.id, result: result === undefined ? null : result});
    } catch (err) {
      reply({id: req.id, error: describe(err)});
    }
  });
});
// The requests' pipe closes after the close op, or when bankmirror ended
// without one (killed): then what is under way is abandoned rather than
// finished, since nobody will record it, and the budget's local copy is
// left for the next session (which waits for this process to end).
rl.on('close', () => {
  process.exit(0);
});
