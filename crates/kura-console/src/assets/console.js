// The Kura console's script: the stream's live tail, charts refreshed in place, and
// confirmations. Values are shown with textContent only, never parsed as HTML.
"use strict";

function tail(controls) {
  const body = document.querySelector("#tail tbody");
  const status = document.getElementById("tail-status");
  const from = document.getElementById("tail-from");
  const pause = document.getElementById("tail-pause");
  let cursor = "";
  let paused = false;
  let shown = 0;
  // Bumped when the start changes: an answer to a poll sent before is dropped.
  let generation = 0;
  const cell = (row, text, cls) => {
    const td = row.insertCell();
    if (cls) td.className = cls;
    if (text !== null && text !== undefined) {
      const pre = document.createElement("pre");
      pre.textContent = text;
      td.appendChild(pre);
    }
  };
  async function poll() {
    if (!paused) {
      try {
        const sent = generation;
        const form = new URLSearchParams({ csrf: controls.dataset.csrf, from: from.value, cursor });
        const response = await fetch(controls.dataset.poll, {
          method: "POST", body: form, credentials: "same-origin", redirect: "error" });
        if (response.status === 401) {
          status.textContent = "signed out: reload the page to sign in";
          return;
        }
        const answer = await response.json();
        if (sent !== generation) {
          // The start changed while this poll was out: its records are from the old one.
        } else if (answer.error) {
          status.textContent = answer.error;
        } else {
          cursor = answer.cursor;
          for (const r of answer.records) {
            const row = body.insertRow(0);
            row.className = "event " + String(r.event).toLowerCase();
            cell(row, r.time);
            cell(row, r.event, "eventname");
            cell(row, r.keys);
            cell(row, r.old, "image old");
            cell(row, r.new, "image new");
            cell(row, r.shard + " · " + r.sequence, "seq");
            shown += 1;
          }
          while (body.rows.length > 500) body.deleteRow(-1);
          status.textContent = "live · " + shown + " records · " + answer.shards + " shards";
        }
      } catch (e) {
        status.textContent = "cannot reach the server: " + e;
      }
    }
    setTimeout(poll, 1000);
  }
  from.addEventListener("change", () => {
    generation += 1;
    cursor = "";
    body.replaceChildren();
    shown = 0;
  });
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.textContent = paused ? "Resume" : "Pause";
    status.textContent = paused ? "paused" : "resuming…";
  });
  poll();
}

function refreshCharts(charts) {
  setInterval(async () => {
    try {
      const answer = await fetch(charts.dataset.refresh,
        { credentials: "same-origin", redirect: "error" });
      // The fragment is the server's own markup, every value in it escaped.
      if (answer.ok) charts.innerHTML = await answer.text();
    } catch (e) { /* the next refresh tries again */ }
  }, 5000);
}

document.addEventListener("DOMContentLoaded", () => {
  const controls = document.getElementById("tail-controls");
  if (controls) tail(controls);
  const charts = document.getElementById("charts");
  if (charts && charts.dataset.refresh) refreshCharts(charts);
  const file = document.getElementById("load-file");
  if (file) {
    // The file is read here and sent as the form's text: the server takes no uploads.
    file.addEventListener("change", async () => {
      if (file.files.length) document.getElementById("load-items").value = await file.files[0].text();
    });
  }
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
});
