// ui.storage.saved_marker: a verdict waits for its answer to be in this browser's storage.
// The marker's own HTML says 保存しています… from the first paint, and the page's CSS hides the
// verdict beside it while it does (ui/storage_saved.css). The bridge (ui/storage.js) marks the
// session's last stored write in window.__attentionTutorStore and fires SIGNAL; then the marker
// says so and the verdict shows. Fixed code: it reads numbers only and writes fixed text.
const SIGNAL = "attention-tutor-stored";

export default function ({ parentElement, data }) {
  const mark = parentElement.querySelector(".at-save");
  const d = data || {};
  if (!mark || typeof d.seq !== "number") return undefined;
  const settle = () => {
    const mem = window.__attentionTutorStore || {};
    const done = ((mem.stored || {})[d.nonce] || 0) >= d.seq;
    if (!done && !(((mem.failed || {})[d.nonce] || 0) >= d.seq)) return false;
    mark.classList.remove("at-saving");
    mark.classList.add(done ? "at-saved" : "at-unsaved");
    mark.textContent = done ? "✓ この回答はこのブラウザに保存しました。"
      : "この回答はブラウザに保存できませんでした。このタブを閉じるまでは残ります（「復習と進捗」で進捗をファイルに書き出せます）。";
    return true;
  };
  if (settle()) return undefined;
  const on = () => { if (settle()) window.removeEventListener(SIGNAL, on); };
  window.addEventListener(SIGNAL, on);
  return () => window.removeEventListener(SIGNAL, on);
}
