"""The bridge to the learner's browser storage (localStorage): fixed JavaScript, data only.

One ``st.components.v2`` component, mounted by ``ui.page()`` on every page. Python hands it a
small command object as ``data`` (never as code); the JavaScript below is this repository's own
fixed code and never evaluates or renders what it stores. It reports back with
``setTriggerValue("stored", …)``, which reruns the script (``on_stored_change``). A trigger, not
a state value: a state value rides along with every later rerun request of the session, so the
stored record read at the start (up to 1 MB) would travel to the server again with every click.

- ``read`` (once per server session, tagged with the session's nonce): the stored text, whether
  storage works at all, and the size of a record kept aside. A report that carries the stored
  text (``read``, ``conflict``) sends a long one gzipped (``gz``: a phone's uplink is slow, and a
  record of weeks compresses ≈ 10×);
- ``write`` {seq, text or patch, expect}: compare-and-swap. It writes only if the stored text is
  still the one Python last saw (hash ``expect``) or this tab's own last write; otherwise another
  tab wrote in between, and it reports ``conflict`` with the stored text (Python merges, writes
  again).
  The write travels once, as a patch of the text the browser holds when there is one
  (:func:`patch`); later commands name it without its text (``ui.state._command``). A browser
  that has not run it, or holds another text than the patch is for, reports ``resend`` and the
  next run sends the whole text;
- ``aside`` {expect}: moves an unusable stored text to ASIDE_KEY (kept, never overwritten by a
  write) before a fresh start; ``clear``: removes the record (「この端末の記録を消す」).

A failure (storage disabled, quota) is reported as ``failed``; the app then keeps the progress
for this tab only.
"""
from __future__ import annotations

import base64
import collections
import itertools
import zlib

import streamlit as st

STORE_KEY = "attention-tutor/progress"          # localStorage keys (the JS below has the same)
ASIDE_KEY = "attention-tutor/progress-unreadable"
COMPONENT_KEY = "progress_store"                # the mounted instance's session-state key
TAIL_KEY = "progress_store_tail"                # a second instance for ui.state.flush()
PACK_UP_TO = 1_000_000                          # the longest stored text the JS sends gzipped (its PACK_UP_TO)

_JS = r"""
const KEY = "attention-tutor/progress";
const ASIDE = "attention-tutor/progress-unreadable";
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

function storage() {
  try {
    const s = window.localStorage;
    const probe = "attention-tutor/probe";
    s.setItem(probe, "1");
    s.removeItem(probe);
    return s;
  } catch (e) {
    return null;
  }
}

export default function ({ data, setTriggerValue }) {
  const cmd = data || {};
  const mem = (window.__attentionTutorStore = window.__attentionTutorStore || { done: {}, own: {} });
  const s = storage();
  const asideSize = () => { try { const a = s && s.getItem(ASIDE); return a ? a.length : 0; } catch (e) { return 0; } };
  const report = (kind, extra) => setTriggerValue("stored", Object.assign(
    { kind: kind, nonce: cmd.nonce, ok: s !== null, aside: asideSize() }, extra || {}));
  const reportText = (kind, text, extra) => {   // a long stored text goes gzipped (a phone's uplink is slow)
    if (text !== null && text.length > PACK_FROM && text.length <= PACK_UP_TO && typeof CompressionStream === "function") {
      gzipped(text).then((gz) => report(kind, Object.assign({ gz: gz }, extra)),
                         () => report(kind, Object.assign({ text: text }, extra)));
    } else {
      report(kind, Object.assign({ text: text }, extra));
    }
  };

  if (cmd.read && mem.done["read:" + cmd.nonce] === undefined) {
    mem.done["read:" + cmd.nonce] = true;
    let text = null;
    try { text = s ? s.getItem(KEY) : null; } catch (e) { text = null; }
    reportText("read", text);
    return;
  }
  for (const op of cmd.ops || []) {
    const id = cmd.nonce + ":" + op.seq;
    if (mem.done[id]) continue;        // each command runs once, even when the page is drawn again
    if (op.op === "write" && typeof op.text !== "string" && !op.patch) {
      report("resend", { seq: op.seq });  // named but not run here: its first command never arrived
      return;
    }
    mem.done[id] = true;
    if (s === null) { report("failed", { seq: op.seq, error: "unavailable" }); return; }
    try {
      const cur = s.getItem(KEY);
      const fp = fingerprint(cur);
      const own = mem.own[cmd.nonce];
      const mine = fp === op.expect || (own !== undefined && fp === own.fp);
      if (op.op === "clear") {
        s.removeItem(KEY);
        mem.own[cmd.nonce] = { fp: "none", seq: op.seq };
      } else if (op.op === "aside") {
        if (fp === op.expect && cur !== null) {   // (another tab wrote meanwhile: leave its record alone)
          s.setItem(ASIDE, cur);
          s.removeItem(KEY);
          mem.own[cmd.nonce] = { fp: "none", seq: op.seq };
        }
      } else if (op.op === "drop_aside") {
        s.removeItem(ASIDE);
        report("dropped", { seq: op.seq });
        return;
      } else if (op.op === "write") {
        if (!mine && (op.patch || cur !== op.text)) {   // another tab wrote meanwhile
          reportText("conflict", cur, { seq: op.seq, own_seq: own === undefined ? null : own.seq });
          return;
        }
        let text = op.text;
        if (op.patch) {                  // the changes to the text stored now, if it is the one they are for
          text = fp === op.patch.base ? patched(cur, op.patch.hunks) : null;
          if (text === null || fingerprint(text) !== op.patch.fp) {
            delete mem.done[id];
            report("resend", { seq: op.seq });
            return;
          }
        }
        s.setItem(KEY, text);
        mem.own[cmd.nonce] = { fp: op.patch ? op.patch.fp : fingerprint(text), seq: op.seq };
      }
    } catch (e) {
      report("failed", { seq: op.seq, error: String(e && e.name || "error").slice(0, 40) });
      return;
    }
  }
}
"""

_DOWNLOAD_HTML = """<div class="at-aside"><button type="button" class="at-dl">読めなかった記録をダウンロード</button></div>"""
_DOWNLOAD_CSS = """
.at-dl { font: inherit; padding: 0.35rem 0.8rem; border-radius: 0.5rem; cursor: pointer;
         border: 1px solid var(--st-border-color, #b0b0b0); background: var(--st-background-color, #fff);
         color: var(--st-text-color, #222); }
.at-dl:focus-visible { outline: 2px solid var(--st-primary-color, #1f5fa6); outline-offset: 2px; }
"""
_DOWNLOAD_JS = r"""
export default function ({ parentElement }) {
  const button = parentElement.querySelector(".at-dl");
  button.onclick = () => {
    let text = "";
    try { text = window.localStorage.getItem("attention-tutor/progress-unreadable") || ""; } catch (e) { text = ""; }
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = "attention-tutor-unreadable-record.txt";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
}
"""

_store = st.components.v2.component("attention_tutor_store", js=_JS)
_download = st.components.v2.component("attention_tutor_aside_download", html=_DOWNLOAD_HTML,
                                       css=_DOWNLOAD_CSS, js=_DOWNLOAD_JS)


def fingerprint(text: str | None) -> str:
    """The JavaScript's fingerprint(): CRC-32 of the UTF-8 bytes + their count ("none" for no text)."""
    if text is None:
        return "none"
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a corrupt stored text): TextEncoder makes it U+FFFD
        raw = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
    return f"{zlib.crc32(raw):08x}:{len(raw)}"


def unpacked(gz: object) -> str:
    """The stored text a report carries as {gz} (``read``, ``conflict``): base64 of its gzipped
    UTF-8 (a ValueError with a Japanese reason for anything else; at most 3 MB unpacked, what
    1,000,000 characters can be)."""
    if not isinstance(gz, str):
        raise ValueError("圧縮された記録が文字列ではありません。")
    limit = 3 * PACK_UP_TO
    try:
        inflate = zlib.decompressobj(wbits=31)   # (gzip)
        raw = inflate.decompress(base64.b64decode(gz, validate=True), limit + 1)
    except (ValueError, zlib.error):
        raise ValueError("圧縮された記録を展開できませんでした。") from None
    if len(raw) > limit or not inflate.eof:
        raise ValueError("圧縮された記録が大きすぎるか、途中で切れています。")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("圧縮された記録が UTF-8 ではありません。") from None


_PIECE_END = "},"     # a stored record's objects end with "}," (attempts, review cards)


def _pieces(text: str) -> list[str]:
    """``text`` cut after each _PIECE_END ("".join gives it back)."""
    *pieces, last = text.split(_PIECE_END)
    return [p + _PIECE_END for p in pieces] + [last]


def _astral(text: str) -> bool:
    """Whether ``text`` has a character JavaScript counts as two (one beyond U+FFFF)."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def patch(old: str | None, new: str) -> list[list] | None:
    """Hunks [start, end, piece] (offsets into ``old``, in order) that turn the stored text ``old``
    into ``new``, for the bridge's ``write`` {patch}; None when ``new`` is better sent whole: no
    old text, a character JavaScript would count differently, or hunks of over half of ``new``.

    An answer changes a few of a record's thousands of objects (one attempt appended, the
    oldest dropped at the limit, one review card), so the texts are compared object by object:
    an object found once in each text, later in both than the last such match, is kept (the
    anchors of a patience diff, in one pass); between two anchors the common ends are kept too
    and the rest is a hunk. ≈ 2 ms for a full record (difflib over a look-behind split: 8.6 ms).
    The browser applies the hunks only to the text they were made for and checks the result's
    fingerprint (else it asks for ``new`` whole)."""
    if old is None or _astral(old) or _astral(new):
        return None
    a, b = _pieces(old), _pieces(new)
    starts = list(itertools.accumulate(map(len, a), initial=0))
    in_a, in_b = collections.Counter(a), collections.Counter(b)
    anchor = {piece: k for k, piece in enumerate(a) if in_a[piece] == 1}
    hunks: list[list] = []

    def replace(i: int, k: int, j0: int, j: int) -> None:
        """a[i:k] becomes b[j0:j], less what both begin and end with."""
        while i < k and j0 < j and a[i] == b[j0]:
            i, j0 = i + 1, j0 + 1
        while i < k and j0 < j and a[k - 1] == b[j - 1]:
            k, j = k - 1, j - 1
        if i < k or j0 < j:
            hunks.append([starts[i], starts[k], "".join(b[j0:j])])

    i = j0 = 0   # the first piece of a, and of b, after the last anchor
    for j, piece in enumerate(b):
        k = anchor.get(piece) if in_b[piece] == 1 else None
        if k is not None and k >= i:
            replace(i, k, j0, j)
            i, j0 = k + 1, j + 1
    replace(i, len(a), j0, len(b))
    return hunks if sum(len(h[2]) for h in hunks) <= len(new) // 2 else None


def mount(data: dict, on_report, key: str = COMPONENT_KEY) -> None:
    """Mount the storage bridge (invisible) with this run's command object."""
    _store(key=key, data=data, on_stored_change=on_report, height=0)


def last_report(key: str = COMPONENT_KEY):
    """What the browser reported last (read before mounting: the callback's input)."""
    value = st.session_state.get(key)
    if value is None:
        return None
    try:
        return value.get("stored") if hasattr(value, "get") else getattr(value, "stored", None)
    except Exception:  # noqa: BLE001 - an unexpected shape is treated as no report
        return None


def download_aside_button() -> None:
    """A button that downloads the record kept aside, straight from the browser's storage."""
    _download(key="progress_aside_download", height="content")
