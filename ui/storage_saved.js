// ui.storage.saved_marker: a verdict waits for its answer to be in this browser's storage.
// The marker's own HTML says 保存しています… from the first paint, and the page's CSS hides the
// verdict beside it while it does (ui/storage_saved.css). The bridge (ui/storage.js) marks the
// session's last stored write in window.__attentionTutorStore and fires SIGNAL; then the marker
// says so and the verdict shows. Not stored after LATE_MS (another tab holds the lock, a command
// was lost, a slow phone): the verdict shows with 保存できていません and what to do, and the marker
// asks Python to send the write again (trigger "retry"), then again every RETRY_MS a few times;
// once it is stored the marker says so. Fixed code: it reads numbers only and writes fixed text.
const SIGNAL = "attention-tutor-stored";
const LATE_MS = 6000, RETRY_MS = 15000, RETRIES = 4;
const SAVED = "✓ この回答はこのブラウザに保存しました。";
const REWRITTEN = "✓ この回答はこのブラウザに保存しました。このブラウザに読めない記録が書き込まれていたため、"
  + "その記録は消さずに退避し、このタブの進捗をまとめて保存し直しました（退避した記録はホームからダウンロードできます）。";
const UNSAVED = "この回答はブラウザに保存できませんでした。このタブを閉じるまでは残ります（「復習と進捗」で進捗をファイルに書き出せます）。";
const LATE = "この回答はまだブラウザに保存できていません（ほかのタブが保存している途中か、通信が遅れています）。"
  + "このタブを閉じずにお待ちください。保存を続けて試みます。長く続くときは「復習と進捗」で進捗をファイルに書き出してください。";

export default function ({ parentElement, data, setTriggerValue }) {
  const mark = parentElement.querySelector(".at-save");
  const d = data || {};
  if (!mark || typeof d.seq !== "number") return undefined;
  const mem = (window.__attentionTutorStore = window.__attentionTutorStore || {});
  const since = (mem.markers = mem.markers || {});
  const id = d.nonce + ":" + d.seq;
  if (since[id] === undefined) since[id] = Date.now();   // (drawn again by a rerun: the same clock)
  const show = (cls, text) => {
    mark.classList.remove("at-saving", "at-late", "at-saved", "at-unsaved");
    mark.classList.add(cls);
    if (mark.textContent !== text) mark.textContent = text;
  };
  const settle = () => {
    const done = ((mem.stored || {})[d.nonce] || 0) >= d.seq;
    if (!done && !(((mem.failed || {})[d.nonce] || 0) >= d.seq)) return false;
    const rewritten = ((mem.asided || {})[d.nonce] || []).some((a) => d.seq > a.after && a.upto !== null && d.seq <= a.upto);
    show(done ? "at-saved" : "at-unsaved", done ? (rewritten ? REWRITTEN : SAVED) : UNSAVED);
    return true;
  };
  if (settle()) return undefined;
  let timer = null, tries = 0;
  const late = () => {               // the verdict shows now, and says it is not saved yet
    if (settle()) return;
    show("at-late", LATE);
    if (tries < RETRIES && typeof setTriggerValue === "function") {
      tries += 1;
      setTriggerValue("retry", d.seq);
    }
    timer = setTimeout(late, RETRY_MS);
  };
  const on = () => { if (settle()) { window.removeEventListener(SIGNAL, on); if (timer !== null) clearTimeout(timer); } };
  window.addEventListener(SIGNAL, on);
  timer = setTimeout(late, Math.max(0, LATE_MS - (Date.now() - since[id])));
  return () => { window.removeEventListener(SIGNAL, on); if (timer !== null) clearTimeout(timer); };
}
