// Loaded after the widget manager on pages with widgets (nb_ipywidgets_js in _config.yml).
//
// The static widget manager draws each slider of an explorer as a noUiSlider handle
// (role="slider", reachable with Tab, moved with the arrow keys) beside a <label> with the
// slider's description. Nothing ties the two together, so the handle has no accessible name
// (axe: aria-input-field-name); and it announces the index of the option ("8") where the
// readout shows the option itself ("5"). Here each handle is named by its label and reads
// out what the readout shows, as the widgets appear and as they move.
(function () {
  "use strict";
  var labelled = 0;

  function describe(slider) {
    var handle = slider.querySelector('[role="slider"]');
    var label = slider.querySelector(".widget-label");
    var readout = slider.querySelector(".widget-readout");
    if (!handle || !label) return;
    if (!label.id) label.id = "widget-label-" + ++labelled;
    if (handle.getAttribute("aria-labelledby") !== label.id) handle.setAttribute("aria-labelledby", label.id);
    // A slider without a tooltip renders title="null" on its label.
    if (label.getAttribute("title") === "null") label.removeAttribute("title");
    var text = readout ? readout.textContent.trim() : "";
    if (text && handle.getAttribute("aria-valuetext") !== text) handle.setAttribute("aria-valuetext", text);
  }

  function describeAll() {
    document.querySelectorAll(".widget-slider").forEach(describe);
  }

  // Widgets render after the page has loaded, and a move rewrites the handle's aria-valuenow and
  // the readout's text; the observer runs after each such change has completed. Its own changes
  // (ids, aria-labelledby, aria-valuetext) are not among the attributes it watches.
  new MutationObserver(describeAll).observe(document.documentElement, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: ["aria-valuenow"],
  });
  document.addEventListener("DOMContentLoaded", describeAll);
})();
