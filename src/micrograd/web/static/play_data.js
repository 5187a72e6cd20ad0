/* The Playground's "your data" panel: import points from a CSV file, export the data set
 * as one, clear every point to draw a data set of your own.
 *
 *   const panel = new DataPanel(part, { importText(text, name), exportText(), clear() });
 *   panel.error(message)      a refused file: shown under the file input (null: hidden)
 *   panel.note(text)          where the data travels (in the link, or as a file)
 *   panel.download(text, name)
 *
 * The page reads no number of a file: the Python side parses it (micrograd.points_csv,
 * the operation csv.read) and says which line and field it refuses; the export is the
 * Python side's text too (play.csv), floats written with repr, so a file exported and
 * imported again gives the same points. */

export class DataPanel {
  /**
   * @param part     the component's part(role) lookup (csv-file, csv-export, clear-all,
   *                 csv-error, data-note, csv-link)
   * @param actions  {importText(text, fileName), exportText() -> text, clear()}
   * @param maxChars the longest file the Python side reads (its characters)
   */
  constructor(part, actions, maxChars) {
    this.$ = part;
    this.act = actions;
    this.maxChars = maxChars;
    const file = part("csv-file");
    file.addEventListener("change", () => {
      const f = file.files && file.files[0];
      if (f) this.read(f);
      file.value = "";  // the same file chosen again is read again
    });
    part("csv-export").onclick = () => this.export();
    part("clear-all").onclick = () => this.act.clear();
  }

  async read(f) {
    // a file far over the cap is not even read into the page (a byte is at least a
    // character's worth of a CSV of numbers); the Python side refuses the rest
    if (this.maxChars && f.size > 4 * this.maxChars) {
      return this.error(`${f.name}: the file is ${f.size} bytes; the playground reads ` +
                        `at most ${this.maxChars} characters`);
    }
    let text;
    try { text = await f.text(); } catch (e) { return this.error(`${f.name}: cannot be read (${e.message})`); }
    await this.act.importText(text, f.name);
  }

  async export() {
    const text = await this.act.exportText();
    if (text !== null && text !== undefined) this.download(text, "micrograd-data.csv");
  }

  download(text, name) {
    const a = this.$("csv-link");
    if (a.href) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
    a.download = name;
    a.click();
  }

  error(message) {
    const box = this.$("csv-error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  note(text) { this.$("data-note").textContent = text || ""; }
}
