// ui.storage's download button: the record kept aside, straight from this browser's storage to a
// file. Fixed code: it never evaluates or renders what is stored.
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
