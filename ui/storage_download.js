// ui.storage's download button: a record kept aside, straight from this browser's storage to a
// file. Fixed code: it never evaluates or renders what is stored (the label is set as text).
const ASIDES = ["attention-tutor/progress-unreadable", "attention-tutor/progress-unreadable/2",
                "attention-tutor/progress-unreadable/3"];

export default function ({ parentElement, data }) {
  const d = data || {};
  const slot = Number.isInteger(d.slot) && d.slot >= 0 && d.slot < ASIDES.length ? d.slot : 0;
  const button = parentElement.querySelector(".at-dl");
  if (typeof d.label === "string") button.textContent = d.label;
  button.onclick = () => {
    let text = "";
    try { text = window.localStorage.getItem(ASIDES[slot]) || ""; } catch (e) { text = ""; }
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = slot === 0 ? "attention-tutor-unreadable-record.txt" : `attention-tutor-unreadable-record-${slot + 1}.txt`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
}
