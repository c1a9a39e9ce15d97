// ui.storage's bridge to localStorage: fixed code of this repository. It never evaluates or renders
// what it stores; Python hands it a command object as data (see ui/storage.py for the protocol).
//
// One writer at a time where the browser can: every command that touches the record runs inside a
// Web Lock on the record's key (navigator.locks, shared by all tabs of this origin), so two tabs'
// compare-and-swap steps never interleave. Web Locks exist only in a secure context (https,
// localhost): on a plain-http address the commands run unlocked. Either way the main instance
// (cmd.watch) listens to the "storage" event: another tab's write reaches this tab's Python
// ("changed"), which merges it — so a tab whose write was lost to another tab's (a stale copy, no
// lock) writes its answers again at once, and an open tab's counts follow the other tabs.
// After each command it marks the session's last done write (mem.stored) and tells the page
// (the "attention-tutor-stored" event): ui.storage.saved_marker waits for it before a verdict shows.
const KEY = "attention-tutor/progress";
const ASIDE = "attention-tutor/progress-unreadable";
const ASIDES = [ASIDE, ASIDE + "/2", ASIDE + "/3"];   // records kept aside, newest first (ASIDE_KEYS)
const BACKUP = "attention-tutor/backup";              // when the learner last saved a backup file (BACKUP_KEY)
const ASKED = "attention-tutor/persist-asked";      // when persist() was last asked (Date.now())
const WEEK_MS = 7 * 24 * 3600 * 1000;
const SIGNAL = "attention-tutor-stored";   // (ui/storage_saved.js listens)
const PACK_FROM = 2000, PACK_UP_TO = 1000000;   // a stored text this long (characters) is reported gzipped
const SETTLE_MS = 250;                     // another tab's writes, this close together, are reported once
const BUSY_MS = 1500;                      // … and not while the learner is tapping in this tab

const CRC = new Uint32Array(256);       // CRC-32 (zlib's) table
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC[n] = c >>> 0;
}

function fingerprint(text) {           // CRC-32 of the UTF-8 bytes, and their count
  if (text === null || text === undefined) return "none";
  const bytes = new TextEncoder().encode(text);
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ((c ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0") + ":" + bytes.length;
}

async function gzipped(text) {       // gzip of the UTF-8 bytes, as base64
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

function patched(text, hunks) {        // [start, end, piece]: text[start:end] becomes piece, in order
  const out = [];
  let at = 0;
  for (const [start, end, piece] of hunks) { out.push(text.slice(at, start), piece); at = end; }
  out.push(text.slice(at));
  return out.join("");
}

function full(e) {                     // the browser's "no room left" (Chromium/Safari, Firefox)
  return !!e && (e.name === "QuotaExceededError" || e.name === "NS_ERROR_DOM_QUOTA_REACHED" || e.code === 22);
}

function storage() {                   // { s: localStorage or null, full: it reads but has no room }
  let s;
  try { s = window.localStorage; } catch (e) { return { s: null, full: false }; }
  try {
    const probe = "attention-tutor/probe";
    s.setItem(probe, "1");
    s.removeItem(probe);
    return { s: s, full: false };
  } catch (e) {
    // full: reads still work (a new tab must still see what is stored). Full with nothing in it
    // is a store of no size at all (an old Safari's private window): none.
    return full(e) && s && s.length > 0 ? { s: s, full: true } : { s: null, full: false };
  }
}

function locked() {                    // Web Locks (a secure context only)
  return !!(navigator.locks && typeof navigator.locks.request === "function");
}

function safari() {                    // Safari (macOS, iPhone, iPad): its tracking prevention deletes storage
  const ua = navigator.userAgent || "";
  return /AppleWebKit\//.test(ua) && /Safari\//.test(ua) && !/(Chrome|Chromium|CriOS|FxiOS|EdgiOS|Edg|OPR|Android)\//.test(ua);
}

function mem() {
  return (window.__attentionTutorStore = window.__attentionTutorStore ||
    { done: {}, own: {}, stored: {}, failed: {}, seen: {}, asided: {}, persist: "", watch: null, listening: false });
}

function reporter(nonce, plain, setTriggerValue) {   // report(kind, extra) / reportText(kind, text, extra)
  const m = mem();
  const s = storage().s;
  const asideSizes = () => ASIDES.map((k) => { try { const a = s && s.getItem(k); return a ? a.length : 0; } catch (e) { return 0; } });
  const report = (kind, extra) => {
    const sizes = asideSizes();
    setTriggerValue("stored", Object.assign({ kind: kind, nonce: nonce, ok: s !== null, full: storage().full,
      aside: sizes.reduce((a, b) => a + b, 0), asides: sizes.filter((n) => n > 0).length,
      locks: locked(), safari: safari(), persist: m.persist }, extra || {}));
  };
  const reportText = (kind, text, extra) => {   // a long stored text goes gzipped (a phone's uplink is slow)
    if (text !== null && text.length > PACK_UP_TO) {   // more than any record can be: its size only
      report(kind, Object.assign({ oversize: text.length }, extra));
    } else if (text !== null && text.length > PACK_FROM && !plain && typeof CompressionStream === "function") {
      gzipped(text).then((gz) => report(kind, Object.assign({ gz: gz }, extra)),
                         () => report(kind, Object.assign({ text: text }, extra)));
    } else {
      report(kind, Object.assign({ text: text }, extra));
    }
  };
  return { report, reportText };
}

function persistence(m, ask, tell) {   // navigator.storage: persisted() always, persist() when Python asks
  const st = navigator.storage;        // (returns a promise: settled when persisted() has answered)
  if (!st || typeof st.persisted !== "function" || typeof st.persist !== "function") {
    m.persist = "unsupported";
    return Promise.resolve();
  }
  let last = 0;
  try { last = Number(window.localStorage.getItem(ASKED)) || 0; } catch (e) { last = Date.now(); }
  const recent = Date.now() - last <= WEEK_MS;   // asked this week (a browser that prompts: once a week)
  if (m.persist === "") {
    m.persist = "asking";
    m.persisted = st.persisted().then((yes) => { m.persist = yes ? "granted" : recent ? "denied" : "not-asked"; },
                                      () => { m.persist = "not-asked"; });
  }
  if (ask && m.persist === "not-asked" && !recent) {
    try { window.localStorage.setItem(ASKED, String(Date.now())); } catch (e) { /* no room: ask all the same */ }
    m.persist = "asking";
    st.persist().then((yes) => { m.persist = yes ? "granted" : "denied"; tell(); },
                      () => { m.persist = "denied"; tell(); });
  }
  return m.persisted || Promise.resolve();
}

function watch(m) {                    // another tab wrote the record: the main instance reports it
  if (m.listening) return;
  m.listening = true;
  let timer = null, touched = 0;
  // The report reruns this tab. While the learner is using it (a tap or key in the last BUSY_MS) the
  // rerun waits until they pause, so it never swaps the page under a click; a tab in the background
  // (hidden) is told at once.
  for (const kind of ["pointerdown", "keydown", "touchstart"]) {
    window.addEventListener(kind, () => { touched = Date.now(); }, { capture: true, passive: true });
  }
  const look = () => {
    timer = null;
    const w = m.watch;
    if (!w) return;
    const busy = !document.hidden && Date.now() - touched < BUSY_MS;
    if (busy) { timer = setTimeout(look, BUSY_MS - (Date.now() - touched) + 50); return; }
    let cur = null;
    try { cur = window.localStorage.getItem(KEY); } catch (e) { return; }
    const fp = fingerprint(cur);
    const own = m.own[w.nonce];
    if ((own !== undefined && fp === own.fp) || fp === m.seen[w.nonce]) return;   // this tab's own, or told already
    m.seen[w.nonce] = fp;
    reporter(w.nonce, w.plain, w.trigger).reportText("changed", cur, { own_seq: own === undefined ? null : own.seq });
  };
  window.addEventListener("storage", (e) => {
    if (e.key !== KEY && e.key !== null) return;   // (null: the whole store was cleared)
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(look, SETTLE_MS);
  });
}

export default function ({ data, setTriggerValue }) {
  const cmd = data || {};
  const m = mem();
  const opened = storage();
  const s = opened.s;
  const { report, reportText } = reporter(cmd.nonce, cmd.plain, setTriggerValue);
  const persisted = persistence(m, cmd.persist === true, () => report("persist"));
  if (cmd.watch) {
    m.watch = { nonce: cmd.nonce, plain: cmd.plain, trigger: setTriggerValue };
    if (s !== null) watch(m);
  }

  const reading = "read:" + cmd.nonce + (cmd.plain ? ":plain" : "");   // (plain: its gzip came back broken)
  if (cmd.read && m.done[reading] === undefined) {
    m.done[reading] = true;
    const read = () => {                // (after persisted() has answered, or 300 ms: the read says it too)
      let text = null, backup = null;
      try { text = s ? s.getItem(KEY) : null; backup = s ? s.getItem(BACKUP) : null; } catch (e) { text = null; }
      m.seen[cmd.nonce] = fingerprint(text);
      reportText("read", text, { backup: backup !== null && backup.length < 200 ? backup : null });
    };
    Promise.race([persisted, new Promise((done) => setTimeout(done, 300))]).then(read, read);
    return;
  }
  const ops = (cmd.ops || []).filter((op) => !m.done[cmd.nonce + ":" + op.seq]);
  if (ops.length === 0) return;
  if (locked()) {
    navigator.locks.request(KEY, () => { run(ops); }).catch(() => run(ops));
  } else {
    run(ops);
  }

  function run(ops) {                  // the commands, in order, until one needs Python again
    let asided = null;                 // an unreadable record moved aside in this run: {dropped}
    const tell = (kind, extra) => report(kind, Object.assign(asided ? { gave_way: asided.dropped } : {}, extra || {}));
    for (const op of ops) {
      const id = cmd.nonce + ":" + op.seq;
      if (m.done[id]) continue;        // each command runs once, even when the page is drawn again
      if (op.op === "write" && typeof op.text !== "string" && !op.patch) {
        tell("resend", { seq: op.seq });  // named but not run here: its first command never arrived
        return;
      }
      m.done[id] = true;
      if (s === null) { failed(op, "unavailable", tell); return; }
      try {
        const cur = s.getItem(KEY);
        const fp = fingerprint(cur);
        const own = m.own[cmd.nonce];
        const mine = fp === op.expect || (own !== undefined && fp === own.fp);
        if (op.op === "clear") {
          s.removeItem(KEY);
          m.own[cmd.nonce] = { fp: "none", seq: op.seq };
          m.seen[cmd.nonce] = "none";
        } else if (op.op === "backup") {
          s.setItem(BACKUP, op.text);
        } else if (op.op === "aside") {       // (another tab wrote meanwhile: leave its record alone)
          const same = op.expect !== undefined ? fp === op.expect : cur !== null && cur.length === op.size;
          if (same && cur !== null) {
            const dropped = s.getItem(ASIDES[ASIDES.length - 1]) !== null;   // the oldest gives way
            for (let i = ASIDES.length - 1; i > 0; i--) {
              const older = s.getItem(ASIDES[i - 1]);
              if (older !== null) s.setItem(ASIDES[i], older);
            }
            s.setItem(ASIDE, cur);
            s.removeItem(KEY);
            m.own[cmd.nonce] = { fp: "none", seq: op.seq };
            m.seen[cmd.nonce] = "none";
            // the writes not stored yet are this tab's record written again: their cards say so
            (m.asided[cmd.nonce] = m.asided[cmd.nonce] || []).push({ after: m.stored[cmd.nonce] || 0, upto: null });
            asided = { dropped: dropped };   // the writes queued behind it go on in this run
          }
        } else if (op.op === "drop_aside") {
          for (const k of ASIDES) s.removeItem(k);
          tell("dropped", { seq: op.seq });
          return;
        } else if (op.op === "write") {
          if (!mine && (op.patch || cur !== op.text)) {   // another tab wrote meanwhile
            m.seen[cmd.nonce] = fp;
            reportText("conflict", cur, Object.assign(asided ? { gave_way: asided.dropped } : {},
              { seq: op.seq, own_seq: own === undefined ? null : own.seq }));
            return;
          }
          let text = op.text;
          if (op.patch) {                // the changes to the text stored now, if it is the one they are for
            text = fp === op.patch.base ? patched(cur, op.patch.hunks) : null;
            if (text === null || fingerprint(text) !== op.patch.fp) {
              delete m.done[id];
              tell("resend", { seq: op.seq });
              return;
            }
          }
          s.setItem(KEY, text);
          m.own[cmd.nonce] = { fp: op.patch ? op.patch.fp : fingerprint(text), seq: op.seq };
          m.seen[cmd.nonce] = m.own[cmd.nonce].fp;   // (a text seen before this write is news again)
          stored(op.seq, tell);
        }
      } catch (e) {
        failed(op, full(e) ? e : String(e && e.name || "error").slice(0, 40), tell);
        return;
      }
    }
    if (asided) tell("asided", { dropped: asided.dropped });   // kept: the page may say so now
  }

  function stored(seq, tell) {         // a write is in storage: a verdict waiting for it may show
    m.stored[cmd.nonce] = Math.max(m.stored[cmd.nonce] || 0, seq);
    for (const a of m.asided[cmd.nonce] || []) if (a.upto === null) a.upto = seq;
    window.dispatchEvent(new CustomEvent(SIGNAL));
    if (m.failed[cmd.nonce]) {         // saving works again (space was freed): Python drops its notice
      delete m.failed[cmd.nonce];
      tell("saved", { seq: seq });
    }
  }

  function failed(op, error, tell) {   // not saved: the verdict shows, and Python says why
    m.failed[cmd.nonce] = Math.max(m.failed[cmd.nonce] || 0, op.seq);
    window.dispatchEvent(new CustomEvent(SIGNAL));
    tell("failed", { seq: op.seq, error: full(error) ? "QuotaExceededError" : error });
  }
}
export { fingerprint, patched };   // (for tests/test_storage.py: the same CRC-32 and patch as ui/storage.py)
