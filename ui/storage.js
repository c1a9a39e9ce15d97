// ui.storage's bridge to localStorage: fixed code of this repository. It never evaluates or renders
// what it stores; Python hands it a command object as data (see ui/storage.py for the protocol).
//
// One writer at a time: every command that touches the record runs inside a Web Lock on the
// record's key (navigator.locks, shared by all tabs of this origin), so two tabs' compare-and-swap
// steps never interleave. A browser without Web Locks runs them as before, unlocked.
// After each command it marks the session's last done write (mem.stored) and tells the page
// (the "attention-tutor-stored" event): ui.storage.saved_marker waits for it before a verdict shows.
const KEY = "attention-tutor/progress";
const ASIDE = "attention-tutor/progress-unreadable";
const ASIDES = [ASIDE, ASIDE + "/2", ASIDE + "/3"];   // records kept aside, newest first (ASIDE_KEYS)
const SIGNAL = "attention-tutor-stored";   // (ui/storage_saved.js listens)
const PACK_FROM = 2000, PACK_UP_TO = 1000000;   // a stored text this long (characters) is reported gzipped

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

export default function ({ data, setTriggerValue }) {
  const cmd = data || {};
  const mem = (window.__attentionTutorStore = window.__attentionTutorStore ||
                { done: {}, own: {}, stored: {}, failed: {} });
  const opened = storage();
  const s = opened.s;
  const asideSizes = () => ASIDES.map((k) => { try { const a = s && s.getItem(k); return a ? a.length : 0; } catch (e) { return 0; } });
  const report = (kind, extra) => {
    const sizes = asideSizes();
    setTriggerValue("stored", Object.assign({ kind: kind, nonce: cmd.nonce, ok: s !== null, full: opened.full,
      aside: sizes.reduce((a, b) => a + b, 0), asides: sizes.filter((n) => n > 0).length }, extra || {}));
  };
  const reportText = (kind, text, extra) => {   // a long stored text goes gzipped (a phone's uplink is slow)
    if (text !== null && text.length > PACK_UP_TO) {   // more than any record can be: its size only
      report(kind, Object.assign({ oversize: text.length }, extra));
    } else if (text !== null && text.length > PACK_FROM && !cmd.plain && typeof CompressionStream === "function") {
      gzipped(text).then((gz) => report(kind, Object.assign({ gz: gz }, extra)),
                         () => report(kind, Object.assign({ text: text }, extra)));
    } else {
      report(kind, Object.assign({ text: text }, extra));
    }
  };

  const reading = "read:" + cmd.nonce + (cmd.plain ? ":plain" : "");   // (plain: its gzip came back broken)
  if (cmd.read && mem.done[reading] === undefined) {
    mem.done[reading] = true;
    let text = null;
    try { text = s ? s.getItem(KEY) : null; } catch (e) { text = null; }
    reportText("read", text);
    return;
  }
  const ops = (cmd.ops || []).filter((op) => !mem.done[cmd.nonce + ":" + op.seq]);
  if (ops.length === 0) return;
  if (navigator.locks && typeof navigator.locks.request === "function") {
    navigator.locks.request(KEY, () => { run(ops); }).catch(() => run(ops));
  } else {
    run(ops);
  }

  function run(ops) {                  // the commands, in order, until one needs Python again
    for (const op of ops) {
      const id = cmd.nonce + ":" + op.seq;
      if (mem.done[id]) continue;      // each command runs once, even when the page is drawn again
      if (op.op === "write" && typeof op.text !== "string" && !op.patch) {
        report("resend", { seq: op.seq });  // named but not run here: its first command never arrived
        return;
      }
      mem.done[id] = true;
      if (s === null) { failed(op, "unavailable"); return; }
      try {
        const cur = s.getItem(KEY);
        const fp = fingerprint(cur);
        const own = mem.own[cmd.nonce];
        const mine = fp === op.expect || (own !== undefined && fp === own.fp);
        if (op.op === "clear") {
          s.removeItem(KEY);
          mem.own[cmd.nonce] = { fp: "none", seq: op.seq };
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
            mem.own[cmd.nonce] = { fp: "none", seq: op.seq };
            report("asided", { seq: op.seq, dropped: dropped });   // kept: the page may say so now
            return;
          }
        } else if (op.op === "drop_aside") {
          for (const k of ASIDES) s.removeItem(k);
          report("dropped", { seq: op.seq });
          return;
        } else if (op.op === "write") {
          if (!mine && (op.patch || cur !== op.text)) {   // another tab wrote meanwhile
            reportText("conflict", cur, { seq: op.seq, own_seq: own === undefined ? null : own.seq });
            return;
          }
          let text = op.text;
          if (op.patch) {                // the changes to the text stored now, if it is the one they are for
            text = fp === op.patch.base ? patched(cur, op.patch.hunks) : null;
            if (text === null || fingerprint(text) !== op.patch.fp) {
              delete mem.done[id];
              report("resend", { seq: op.seq });
              return;
            }
          }
          s.setItem(KEY, text);
          mem.own[cmd.nonce] = { fp: op.patch ? op.patch.fp : fingerprint(text), seq: op.seq };
          stored(op.seq);
        }
      } catch (e) {
        failed(op, full(e) ? e : String(e && e.name || "error").slice(0, 40));
        return;
      }
    }
  }

  function stored(seq) {               // a write is in storage: a verdict waiting for it may show
    mem.stored[cmd.nonce] = Math.max(mem.stored[cmd.nonce] || 0, seq);
    window.dispatchEvent(new CustomEvent(SIGNAL));
    if (mem.failed[cmd.nonce]) {       // saving works again (space was freed): Python drops its notice
      delete mem.failed[cmd.nonce];
      report("saved", { seq: seq });
    }
  }

  function failed(op, error) {         // not saved: the verdict shows, and Python says why
    mem.failed[cmd.nonce] = Math.max(mem.failed[cmd.nonce] || 0, op.seq);
    window.dispatchEvent(new CustomEvent(SIGNAL));
    report("failed", { seq: op.seq, error: full(error) ? "QuotaExceededError" : error });
  }
}
export { fingerprint, patched };   // (for tests/test_storage.py: the same CRC-32 and patch as ui/storage.py)
