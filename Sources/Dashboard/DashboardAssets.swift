/// The page, its script and its style, compiled into the binary: the dashboard works offline and
/// loads nothing from anywhere else (its Content-Security-Policy forbids it).
enum DashboardAssets {
    struct Asset {
        let contentType: String
        let body: String
    }

    static func asset(at path: String) -> Asset? {
        switch path {
        case "/": Asset(contentType: "text/html; charset=utf-8", body: page)
        case "/dashboard.js": Asset(contentType: "text/javascript; charset=utf-8", body: script)
        case "/dashboard.css": Asset(contentType: "text/css; charset=utf-8", body: style)
        default: nil
        }
    }

    static let page = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>iaa dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/dashboard.css">
</head>
<body>
<header>
  <h1>iaa</h1>
  <span id="graph-name"></span>
  <span id="link" data-state="connecting">connecting…</span>
  <span id="jack"></span>
  <span class="spacer"></span>
  <button id="interrupt-begin" type="button" title="Begin an interruption (a phone call takes the audio)">Begin interruption</button>
  <button id="interrupt-end" type="button" title="End the interruption; apps told shouldResume may play again">End interruption</button>
</header>
<div id="refusal" role="alert" hidden></div>
<main>
  <section id="graph-view" aria-label="graph">
    <svg id="graph" xmlns="http://www.w3.org/2000/svg"></svg>
  </section>
  <aside>
    <section id="app-panel" aria-label="selected app">
      <h2 id="app-title">Select an app</h2>
      <p id="app-summary"></p>
      <div id="session-controls" hidden>
        <button type="button" data-method="session.activate">Activate</button>
        <button type="button" data-method="session.deactivate">Deactivate</button>
        <button type="button" data-method="session.startAudio">Start audio</button>
        <button type="button" data-method="session.stopAudio">Stop audio</button>
      </div>
      <div id="parameters"></div>
    </section>
    <section id="wiring" aria-label="connections">
      <h2>Connect</h2>
      <form id="connect-form">
        <input id="connect-from" list="port-names" placeholder="from (tone:out)" autocomplete="off">
        <input id="connect-to" list="port-names" placeholder="to (system:playback_1)" autocomplete="off">
        <button type="submit" id="connect">Connect</button>
        <button type="button" id="disconnect">Disconnect</button>
      </form>
      <datalist id="port-names"></datalist>
      <ul id="rules"></ul>
    </section>
    <section id="timeline-view" aria-label="events">
      <h2>Events</h2>
      <ol id="timeline"></ol>
    </section>
  </aside>
</main>
<script src="/dashboard.js"></script>
</body>
</html>
"""#
}
