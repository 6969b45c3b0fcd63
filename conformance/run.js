'use strict';
// Conformance suite: the npm client up-bank-api, written by someone else,
// runs against the simulated bank, and every result is checked against the
// bank's own record (its control API under /_sim/).
//
// The bank must run with --public-url https://api.up.com.au/api/v1 so that
// the client's production prefix works; an axios interceptor sends each
// request to the simulator instead. Environment:
//   SIM_API_URL        the simulator's API base, e.g. http://127.0.0.1:8081/api/v1
//   SIM_TOKEN          the API token
//   SIM_CONTROL_URL    e.g. http://127.0.0.1:8081/_sim
//   SIM_CONTROL_TOKEN  the control token
// It prints one line per check and ends with "N passed, M failed"; the exit
// status is 1 when any check failed.

const crypto = require('crypto');
const http = require('http');
const { UpApi, isUpApiError } = require('up-bank-api');

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    console.error(`conformance: ${name} is not set`);
    process.exit(2);
  }
  return v.replace(/\/+$/, '');
};
const API = env('SIM_API_URL') + '/';
const TOKEN = env('SIM_TOKEN');
const CONTROL = env('SIM_CONTROL_URL');
const CONTROL_TOKEN = env('SIM_CONTROL_TOKEN');
const PRODUCTION = 'https://api.up.com.au/api/v1';

// client returns an UpApi whose requests go to the simulator.
function client(token) {
  const up = new UpApi(token);
  up.api.getApi().interceptors.request.use((config) => {
    config.baseURL = API;
    return config;
  });
  return up;
}
const up = client(TOKEN);

// control calls the simulator's control API.
async function control(method, path, body) {
  const res = await fetch(CONTROL + path, {
    method,
    headers: { Authorization: `Bearer ${CONTROL_TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`control ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok - ${name}`);
  } catch (e) {
    failed++;
    console.log(`not ok - ${name}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}
function sameList(got, want, what) {
  assert(got.length === want.length, `${what}: ${got.length} items, want ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    assert(got[i] === want[i], `${what}: item ${i} is ${got[i]}, want ${want[i]}`);
  }
}

// walk follows links.next from a first page; back follows links.prev from
// the last page and returns the items in listing order.
async function walk(first) {
  const ids = [];
  let page = await first;
  let last = page;
  let pages = 0;
  for (;;) {
    pages++;
    for (const it of page.data) ids.push(it.id);
    assert(page.links.prev === null || typeof page.links.prev === 'function', 'links.prev is neither null nor a link');
    last = page;
    if (!page.links.next) break;
    page = await page.links.next();
  }
  return { ids, pages, last };
}
async function back(last) {
  const chunks = [];
  let page = last;
  for (;;) {
    chunks.unshift(page.data.map((it) => it.id));
    if (!page.links.prev) break;
    page = await page.links.prev();
  }
  return chunks.flat();
}

async function expectStatus(status, fn) {
  try {
    await fn();
  } catch (e) {
    assert(isUpApiError(e), `not an API error: ${e}`);
    assert(e.response.status === status, `status ${e.response.status}, want ${status}`);
    assert(Array.isArray(e.response.data.errors) && e.response.data.errors.length > 0, 'no errors array');
    return;
  }
  throw new Error(`no error, want ${status}`);
}

async function main() {
  const truth = async () => (await control('GET', '/transactions')).data;
  let txs = await truth();
  const accounts = (await control('GET', '/accounts')).data;
  assert(txs.length > 100, `the bank has only ${txs.length} transactions`);

  await check('util.ping', async () => {
    const pong = await up.util.ping();
    assert(typeof pong.meta.id === 'string' && pong.meta.id.length > 0, 'no meta.id');
  });
  await check('a wrong token is 401', async () => {
    await expectStatus(401, () => client('wrong-token').util.ping());
  });
  await check('links carry the production prefix', async () => {
    const page = await up.transactions.list({ pageSize: 1 });
    assert(page.data[0].links.self.startsWith(PRODUCTION + '/transactions/'), `self ${page.data[0].links.self}`);
  });

  for (const size of [1, 2, 20]) {
    await check(`accounts.list pageSize ${size}`, async () => {
      const { ids, last } = await walk(up.accounts.list({ pageSize: size }));
      sameList(ids, accounts.map((a) => a.id), 'accounts');
      sameList(await back(last), ids, 'accounts backwards');
    });
  }
  await check('accounts.retrieve balances', async () => {
    for (const a of accounts) {
      const got = (await up.accounts.retrieve(a.id)).data;
      assert(got.attributes.balance.valueInBaseUnits === a.balance.valueInBaseUnits, `${a.displayName}: balance`);
      assert(got.attributes.displayName === a.displayName, `${a.displayName}: name`);
    }
  });

  for (const size of [1, 20, 37, 100]) {
    await check(`transactions.list pageSize ${size}`, async () => {
      const { ids, pages, last } = await walk(up.transactions.list({ pageSize: size }));
      sameList(ids, txs.map((t) => t.id), 'transactions');
      assert(pages === Math.ceil(txs.length / size), `${pages} pages`);
      if (size >= 20) sameList(await back(last), ids, 'transactions backwards');
    });
  }
  await check('transactions.retrieve', async () => {
    for (const t of txs.slice(0, 25)) {
      const got = (await up.transactions.retrieve(t.id)).data;
      assert(JSON.stringify(got) === JSON.stringify(t), `${t.id} differs from the record`);
    }
  });
  await check('transactions.retrieve unknown is 404', async () => {
    await expectStatus(404, () => up.transactions.retrieve('00000000-0000-4000-8000-000000000000'));
  });
  for (const a of accounts) {
    await check(`transactions.listByAccount ${a.displayName}`, async () => {
      const { ids } = await walk(up.transactions.listByAccount(a.id, { pageSize: 37 }));
      sameList(ids, txs.filter((t) => t.relationships.account.data.id === a.id).map((t) => t.id), a.displayName);
    });
  }
  for (const status of ['HELD', 'SETTLED']) {
    await check(`transactions filter[status]=${status}`, async () => {
      const { ids } = await walk(up.transactions.list({ pageSize: 100, filterStatus: status }));
      sameList(ids, txs.filter((t) => t.attributes.status === status).map((t) => t.id), status);
    });
  }

  // Dates with a +10:00 offset, encoded by the caller (a raw '+' would be a space).
  const created = txs.map((t) => Date.parse(t.attributes.createdAt));
  const since = new Date(created[Math.floor(txs.length * 0.7)]);
  const until = new Date(created[Math.floor(txs.length * 0.2)]);
  const aest = (d) => new Date(d.getTime() + 10 * 3600e3).toISOString().replace(/\.\d{3}Z$/, '+10:00');
  await check('transactions filter[since] and filter[until] at +10:00', async () => {
    const { ids } = await walk(up.transactions.list({
      pageSize: 20, filterSince: encodeURIComponent(aest(since)), filterUntil: encodeURIComponent(aest(until)),
    }));
    const want = txs.filter((t, i) => created[i] >= since.getTime() && created[i] < until.getTime()).map((t) => t.id);
    assert(want.length > 0, 'the range is empty');
    sameList(ids, want, 'date range');
  });
  await check('transactions filter[since] only', async () => {
    const { ids } = await walk(up.transactions.list({ pageSize: 100, filterSince: encodeURIComponent(aest(until)) }));
    sameList(ids, txs.filter((t, i) => created[i] >= until.getTime()).map((t) => t.id), 'since');
  });
  for (const category of ['good-life', 'groceries', 'home']) {
    await check(`transactions filter[category]=${category}`, async () => {
      const { ids } = await walk(up.transactions.list({ pageSize: 37, filterCategory: category }));
      const want = txs.filter((t) => [t.relationships.category.data, t.relationships.parentCategory.data]
        .some((c) => c && c.id === category)).map((t) => t.id);
      assert(want.length > 0, 'no transaction in the category');
      sameList(ids, want, category);
    });
  }
  await check('transactions filter[category] unknown is 404', async () => {
    await expectStatus(404, () => up.transactions.list({ filterCategory: 'no-such-category' }));
  });

  // Tag writes with labels that need escaping, then every tag filter.
  const labels = ['with space', 'a+b', '100% sure', 'you & me', 'either/or', 'Café Ünïcode', '🏖 beach', 'x?y=z#w'];
  const targets = [txs[3].id, txs[4].id];
  await check('tags.addTagsToTransaction (duplicates ignored)', async () => {
    await up.tags.addTagsToTransaction(targets[0], labels.slice(0, 4).concat(['a+b']).map((id) => ({ type: 'tags', id })));
    await up.tags.addTagsToTransaction(targets[1], labels.slice(4).map((id) => ({ type: 'tags', id })));
    txs = await truth();
    const tagsOf = (id) => txs.find((t) => t.id === id).relationships.tags.data.map((d) => d.id);
    for (const l of labels.slice(0, 4)) assert(tagsOf(targets[0]).includes(l), `${l} missing`);
    assert(tagsOf(targets[0]).filter((l) => l === 'a+b').length === 1, 'duplicate tag kept');
    for (const l of labels.slice(4)) assert(tagsOf(targets[1]).includes(l), `${l} missing`);
  });
  await check('tags.addTagsToTransaction beyond 6 is refused', async () => {
    await expectStatus(422, () => up.tags.addTagsToTransaction(targets[1], ['1', '2', '3'].map((id) => ({ type: 'tags', id }))));
  });
  for (const label of labels) {
    await check(`transactions filter[tag]=${label}`, async () => {
      const { ids } = await walk(up.transactions.list({ pageSize: 20, filterTag: encodeURIComponent(label) }));
      const want = txs.filter((t) => t.relationships.tags.data.some((d) => d.id === label)).map((t) => t.id);
      assert(want.length > 0, 'no transaction has the tag');
      sameList(ids, want, label);
    });
  }
  await check('transactions filter[tag] unknown is empty', async () => {
    const page = await up.transactions.list({ filterTag: encodeURIComponent('no such tag') });
    assert(page.data.length === 0 && page.links.next === null, 'not empty');
  });
  for (const size of [1, 20]) {
    await check(`tags.list pageSize ${size}`, async () => {
      const { ids } = await walk(up.tags.list({ pageSize: size }));
      const want = [...new Set(txs.flatMap((t) => t.relationships.tags.data.map((d) => d.id)))]
        .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      sameList(ids, want, 'tags');
    });
  }
  await check('tags.removeTagsFromTransaction', async () => {
    await up.tags.removeTagsFromTransaction(targets[0], ['a+b', 'not attached'].map((id) => ({ type: 'tags', id })));
    txs = await truth();
    const got = txs.find((t) => t.id === targets[0]).relationships.tags.data.map((d) => d.id);
    assert(!got.includes('a+b') && got.includes('with space'), `tags ${got}`);
  });

  // Categorize through the client's own HTTP instance (the client has no method for it).
  const categorizable = txs.find((t) => t.attributes.isCategorizable);
  await check('categorize and decategorize', async () => {
    const patch = (data) => up.api.getApi().patch(`transactions/${categorizable.id}/relationships/category`, { data });
    let res = await patch({ type: 'categories', id: 'pets' });
    assert(res.status === 204, `status ${res.status}`);
    txs = await truth();
    let t = txs.find((x) => x.id === categorizable.id);
    assert(t.relationships.category.data.id === 'pets' && t.relationships.parentCategory.data.id === 'home', 'not categorized');
    res = await patch(null);
    assert(res.status === 204, `status ${res.status}`);
    txs = await truth();
    t = txs.find((x) => x.id === categorizable.id);
    assert(t.relationships.category.data === null, 'still categorized');
  });
  await check('categorize with a parent category is refused', async () => {
    await expectStatus(422, () => up.api.getApi().patch(`transactions/${categorizable.id}/relationships/category`,
      { data: { type: 'categories', id: 'home' } }));
  });

  await check('categories.list and retrieve', async () => {
    const all = (await up.categories.list()).data;
    assert(all.length > 30, `${all.length} categories`);
    const parents = all.filter((c) => c.relationships.parent.data === null);
    for (const p of parents) {
      const children = (await up.categories.list({ parent: p.id })).data.map((c) => c.id);
      sameList(children, p.relationships.children.data.map((d) => d.id), `children of ${p.id}`);
    }
    const one = (await up.categories.retrieve('groceries')).data;
    assert(one.relationships.parent.data.id === 'home', 'groceries is not under home');
  });
  await check('categories.list unknown parent is 404', async () => {
    await expectStatus(404, () => up.categories.list({ parent: 'no-such-category' }));
  });

  await check('webhooks: create, list, retrieve, ping, logs, delete', async () => {
    const received = [];
    let secret = '';
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const want = crypto.createHmac('sha256', secret).update(body).digest('hex');
        received.push({ ok: req.headers['x-service-authenticity-signature'] === want, body: JSON.parse(body) });
        res.writeHead(200);
        res.end('ok');
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${server.address().port}/hook`;
      const created = (await up.webhooks.create(url, 'conformance')).data;
      secret = created.attributes.secretKey;
      assert(secret.length === 64, 'no secretKey');
      const listed = await walk(up.webhooks.list({ pageSize: 1 }));
      assert(listed.ids.includes(created.id), 'not listed');
      const got = (await up.webhooks.retrieve(created.id)).data;
      assert(got.attributes.url === url && got.attributes.secretKey === undefined, 'retrieve shows the secret or another URL');
      const ping = (await up.webhooks.ping(created.id)).data;
      assert(ping.attributes.eventType === 'PING', 'not a PING');
      await control('POST', '/deliveries/wait', { timeout: '20s' });
      assert(received.length === 1 && received[0].ok && received[0].body.data.id === ping.id, 'ping not delivered signed');
      const logs = await walk(up.api.get(`webhooks/${created.id}/logs?page[size]=1`));
      assert(logs.ids.length === 1, `${logs.ids.length} logs`);
      const record = (await control('GET', `/deliveries?webhook=${created.id}`)).data;
      assert(record.length === 1 && record[0].id === logs.ids[0] && record[0].deliveryStatus === 'DELIVERED', 'logs differ from the record');
      await up.webhooks.delete(created.id);
      await expectStatus(404, () => up.webhooks.retrieve(created.id));
    } finally {
      server.close();
    }
  });

  await check('requests reached the bank as counted', async () => {
    const counts = (await control('GET', '/requests')).data;
    const pings = counts.filter((c) => c.route === '/util/ping');
    assert(pings.some((c) => c.status === 200) && pings.some((c) => c.status === 401), JSON.stringify(pings));
  });
}

main()
  .catch((e) => {
    failed++;
    console.log(`not ok - setup: ${e && e.stack ? e.stack : e}`);
  })
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exitCode = failed > 0 ? 1 : 0;
  });
