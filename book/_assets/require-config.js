// Loaded before require.js on pages with widgets.
(function () {
  // Point the widget manager at the copy served with the site (in _static/widgets), so no
  // request leaves the site.
  var here = document.currentScript.src.replace(/\/[^\/]*$/, "") + "/widgets";
  window.require = {
    paths: {
      "@jupyter-widgets/html-manager/dist": here,
      "@jupyter-widgets/html-manager": here + "/html-manager",
    },
  };
  // The widget manager typesets labels through MathJax 2's MathJax.Hub.Queue; the site runs
  // MathJax 3, so translate those calls once MathJax 3 is there (it is a deferred script, run
  // before DOMContentLoaded and before any widget is rendered).
  document.addEventListener("DOMContentLoaded", function () {
    var mathjax = window.MathJax;
    if (!mathjax || mathjax.Hub || !mathjax.startup) return;
    mathjax.Hub = {
      Queue: function () {
        Array.prototype.forEach.call(arguments, function (command) {
          if (Array.isArray(command) && command[0] === "Typeset" && command[2]) {
            mathjax.startup.promise.then(function () { return mathjax.typesetPromise([command[2]]); });
          }
        });
      },
    };
  });
})();
