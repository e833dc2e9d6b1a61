// yagent ui: follow a live batch over server-sent events. No framework,
// no build step. The server sends "state" events ({nodes: [{id, status,
// ref, href, resumed, worker}], done}) whenever the run changes, and ends the
// stream once it is done.
(function () {
  "use strict";
  var url = document.body.dataset.events;
  if (!url) return;
  var seen = {};
  window.yagentSeen = seen; // the statuses this page was told of (tests read it)
  var es = new EventSource(url);
  es.addEventListener("state", function (ev) {
    var msg = JSON.parse(ev.data);
    msg.nodes.forEach(function (n) {
      seen[n.status] = true;
      var g = document.querySelector('g.node[data-node="' + CSS.escape(n.id) + '"]');
      if (!g) return;
      g.setAttribute("class", "node status-" + n.status);
      g.dataset.status = n.status;
      var st = g.querySelector("tspan.state");
      if (st) st.textContent = n.status + (n.resumed ? " (resumed)" : "") + (n.worker ? " on " + n.worker : "");
      if (n.href) g.parentNode.setAttribute("href", n.href);
    });
    if (msg.done) {
      es.close();
      document.body.dataset.done = "true";
      var live = document.getElementById("live");
      if (live) live.textContent = "finished";
    }
  });
  es.addEventListener("failure", function (ev) {
    es.close();
    var live = document.getElementById("live");
    if (live) live.textContent = "cannot follow the run: " + JSON.parse(ev.data);
  });
})();
