// A scripted session through node-zookeeper-client (Node.js, pure JavaScript), run by NodeJsClientTest against
// ZooKeeper 3.9.5 and against Volery: every line it prints must be the same. Events go into a queue and are
// printed when the script waits for them, so the transcript does not depend on timing.
// Usage: node zk_node_session.js host:port,... (top-level nodes /js and /js2 must not exist).
'use strict';
const zookeeper = require('node-zookeeper-client');

const servers = process.argv[2];
const events = [];
let wake = null;

function line(s) {
    process.stdout.write(s + '\n');
}

function connect(name, sink) {
    return new Promise((resolve, reject) => {
        const client = zookeeper.createClient(servers, { sessionTimeout: 10000, retries: 0 });
        const timer = setTimeout(() => reject(new Error('no connection to ' + servers)), 30000);
        client.once('connected', () => {
            clearTimeout(timer);
            line('session ' + name + ' connected');
            resolve(client);
        });
        client.connect();
    });
}

function watcher(event) {
    events.push(event);
    if (wake) {
        const w = wake;
        wake = null;
        w();
    }
}

async function awaitEvent(what) {
    if (events.length === 0) {
        await new Promise((resolve) => {
            const timer = setTimeout(() => { wake = null; resolve(); }, 10000);
            wake = () => { clearTimeout(timer); resolve(); };
        });
    }
    const e = events.shift();
    line(what + ': ' + (e ? e.getName() + ' ' + e.getPath() : 'no event'));
}

function call(f) {
    return new Promise((resolve) => f((err, ...rest) => resolve([err, ...rest])));
}

function stat(s) {
    return 'version=' + s.version + ' cversion=' + s.cversion + ' aversion=' + s.aversion + ' dataLength='
        + s.dataLength + ' numChildren=' + s.numChildren + ' ephemeral='
        + !s.ephemeralOwner.equals(Buffer.alloc(8)) + ' mzxid==czxid=' + s.mzxid.equals(s.czxid);
}

async function step(what, f, show) {
    const [err, ...rest] = await call(f);
    line(what + ': ' + (err ? err.getName() : show(...rest)));
}

function results(rs) {
    return '[' + (rs || []).map((r) => r.err === undefined ? 'op ' + r.type
        : 'err ' + (r.err === 0 ? 'OK' : zookeeper.Exception.create(r.err).getName())).join(', ') + ']';
}

async function main() {
    const OPEN = zookeeper.ACL.OPEN_ACL_UNSAFE;
    const M = zookeeper.CreateMode;
    const a = await connect('A');
    const made = (p) => p;
    await step('create /js', (cb) => a.create('/js', Buffer.from('top'), OPEN, M.PERSISTENT, cb), made);
    await step('create /js2', (cb) => a.create('/js2', Buffer.from('other'), OPEN, M.PERSISTENT, cb), made);
    await step('create /js/a', (cb) => a.create('/js/a', Buffer.from('alpha'), OPEN, M.PERSISTENT, cb), made);
    await step('create ephemeral /js/e', (cb) => a.create('/js/e', Buffer.from('e'), OPEN, M.EPHEMERAL, cb), made);
    await step('create sequential /js/s-', (cb) => a.create('/js/s-', Buffer.from('s'), OPEN, M.PERSISTENT_SEQUENTIAL, cb), made);
    await step('create sequential /js/s-', (cb) => a.create('/js/s-', Buffer.from('s'), OPEN, M.EPHEMERAL_SEQUENTIAL, cb), made);
    await step('create existing /js/a', (cb) => a.create('/js/a', Buffer.from('x'), OPEN, M.PERSISTENT, cb), made);
    await step('create orphan /js/none/x', (cb) => a.create('/js/none/x', Buffer.from('x'), OPEN, M.PERSISTENT, cb), made);
    await step('create under ephemeral', (cb) => a.create('/js/e/x', Buffer.from('x'), OPEN, M.PERSISTENT, cb), made);
    await step('create null data /js/nul', (cb) => a.create('/js/nul', null, OPEN, M.PERSISTENT, cb), made);

    await step('getData /js/a with a watch', (cb) => a.getData('/js/a', watcher, cb),
        (data, s) => data.toString() + ' ' + stat(s));
    await step('getData /js/nul', (cb) => a.getData('/js/nul', cb), (data, s) => String(data) + ' ' + stat(s));
    await step('setData /js/a version 0', (cb) => a.setData('/js/a', Buffer.from('beta'), 0, cb), (s) => stat(s));
    await awaitEvent('event');
    await step('setData /js/a version 0 again', (cb) => a.setData('/js/a', Buffer.from('gamma'), 0, cb), (s) => stat(s));
    await step('exists /js/x with a watch', (cb) => a.exists('/js/x', watcher, cb), (s) => String(s ? 'stat' : s));
    await step('create /js/x', (cb) => a.create('/js/x', cb), made);
    await awaitEvent('event');
    await step('getChildren /js with a watch', (cb) => a.getChildren('/js', watcher, cb),
        (children, s) => JSON.stringify(children.sort()) + ' ' + stat(s));
    await step('remove /js/x version 1', (cb) => a.remove('/js/x', 1, cb), () => 'removed');
    await step('remove /js/x version -1', (cb) => a.remove('/js/x', -1, cb), () => 'removed');
    await awaitEvent('event');
    await step('getData /js2 with a watch', (cb) => a.getData('/js2', watcher, cb), (data) => data.toString());

    // a transaction (multi) across both top-level nodes, committed and rolled back
    await step('transaction committed', (cb) => a.transaction().check('/js/a', 1).setData('/js/a', Buffer.from('delta'), 1)
        .setData('/js2', Buffer.from('changed'), -1).create('/js2/m', Buffer.from('m'), OPEN, M.PERSISTENT).commit(cb),
    (rs) => results(rs));
    await awaitEvent('event');
    const [err, rs] = await call((cb) => a.transaction().setData('/js/a', Buffer.from('epsilon'), -1)
        .create('/js2/m', Buffer.from('m'), OPEN, M.PERSISTENT).remove('/js2', -1).commit(cb));
    line('transaction rolled back: ' + (err ? err.getName() : 'committed') + ' ' + results(rs));
    await step('getData /js/a', (cb) => a.getData('/js/a', cb), (data, s) => data.toString() + ' ' + stat(s));

    // ACLs and authentication
    a.addAuthInfo('digest', Buffer.from('user:secret'));
    await step('create /js/secret', (cb) => a.create('/js/secret', Buffer.from('s'), zookeeper.ACL.CREATOR_ALL_ACL,
        M.PERSISTENT, cb), made);
    await step('getACL /js/secret', (cb) => a.getACL('/js/secret', cb),
        (acls) => acls.map((x) => x.id.scheme + ':' + x.id.id + ':' + x.permission).join(','));
    const b = await connect('B');
    await step('B getData /js/secret', (cb) => b.getData('/js/secret', cb), (data) => data.toString());
    await step('B setACL /js/a version 0', (cb) => b.setACL('/js/a', zookeeper.ACL.READ_ACL_UNSAFE, 0, cb),
        (s) => stat(s));
    await step('B setData /js/a', (cb) => b.setData('/js/a', Buffer.from('x'), -1, cb), (s) => stat(s));
    await step('B exists /js/e', (cb) => b.exists('/js/e', cb),
        (s) => 'owned by A: ' + (s !== null && s.ephemeralOwner.equals(a.getSessionId())));

    // pipelined requests answer in order
    const order = [];
    await Promise.all([...Array(20).keys()].map((i) => call((cb) => a.getData(i % 2 ? '/js2' : '/js/a', cb))
        .then(() => order.push(i))));
    line('pipelined 20 reads: ' + order.length + ' answers, in order ' + order.every((v, i) => v === i));

    // A's end removes its ephemerals, which B sees
    await step('B exists /js/e with a watch', (cb) => b.exists('/js/e', watcher, cb), (s) => String(s !== null));
    a.close();
    line('session A closed');
    await awaitEvent("B's event");
    await step('B exists /js/e', (cb) => b.exists('/js/e', cb), (s) => String(s));
    b.addAuthInfo('digest', Buffer.from('user:secret'));
    for (const top of ['/js', '/js2']) {
        const [, children] = await call((cb) => b.getChildren(top, cb));
        for (const c of children.sort()) {
            await step('B remove ' + top + '/' + c, (cb) => b.remove(top + '/' + c, -1, cb), () => 'removed');
        }
        await step('B remove ' + top, (cb) => b.remove(top, -1, cb), () => 'removed');
    }
    b.close();
    line('session B closed');
}

main().then(() => process.exit(0), (e) => {
    line('failed: ' + e);
    process.exit(1);
});
