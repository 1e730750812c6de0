#!/usr/bin/python3
"""Drives `iaa web`'s page in headless Chromium (chromium-driver, python3-selenium) for
JackIntegrationTests' DashboardTests, against an engine running graphs/headunit.json.

Usage: dashboard.py URL SOCKET [SCREENSHOT | --graph-only]
Prints one JSON document: what the page showed and how long it took, in milliseconds.
--graph-only stops once the graph is drawn (any graph: the head-unit steps need its apps).
"""
import json
import socket
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, control_socket = sys.argv[1], sys.argv[2]
graph_only = sys.argv[3:] == ["--graph-only"]
screenshot = sys.argv[3] if len(sys.argv) > 3 and not graph_only else None
result = {}


def engine(method, params=None):
    """One request on the engine's control socket, as `iaa` sends it."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(control_socket)
        request = {"id": 1, "method": method, "params": params or {}}
        connection.sendall((json.dumps(request) + "\n").encode())
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = connection.recv(65536)
            if not chunk:
                break
            reply += chunk
    return json.loads(reply)


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,900"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    wait = WebDriverWait(driver, 15, poll_frequency=0.02)

    # Without the token: the server's refusal, and no page.
    driver.get(url.split("?")[0])
    result["withoutToken"] = driver.find_element(By.TAG_NAME, "body").text

    started = time.time()
    driver.get(url)
    wait.until(lambda d: d.execute_script("return document.body.dataset.graphReady === 'true'"))
    result["loadMs"] = (time.time() - started) * 1000
    result["apps"] = driver.execute_script("return [...document.querySelectorAll('g.app')].map(g => g.dataset.app)")
    result["outsideClients"] = driver.execute_script("return [...document.querySelectorAll('g.outside')].map(g => g.dataset.client)")
    result["jackEdges"] = driver.execute_script(
        "return [...document.querySelectorAll('path.edge.jack')].map(p => p.dataset.from + ' -> ' + p.dataset.to)")
    result["link"] = driver.find_element(By.ID, "link").text
    if graph_only:
        raise SystemExit(print(json.dumps(result)))

    def music(attribute):
        return driver.execute_script(f"return document.querySelector('g.app[data-app=music]').dataset.{attribute}")

    # The music plays: its meter moves (20 lines a second).
    wait.until(lambda d: music("rms") is not None and float(music("rms")) > -40)
    result["musicRms"] = float(music("rms"))
    result["musicState"] = music("state")

    # A duckOthers session activated on the engine: how long until the page shows the music
    # ducked, and its meter 6 dB down. A MutationObserver stamps each change as it happens.
    watch = """
        const box = document.querySelector('g.app[data-app=music]');
        const [wanted, audibleLevel] = [arguments[0], arguments[1]];
        window.seen = { state: null, meter: null };
        window.observer?.disconnect();
        window.observer = new MutationObserver(() => {
            const now = Date.now();
            if (window.seen.state === null && box.dataset.state === wanted) window.seen.state = now;
            // Against the level heard before any duck, not the last reading, which may still be
            // on its way back from the previous round.
            const rms = parseFloat(box.dataset.rms);
            const moved = wanted === 'ducked' ? rms < audibleLevel - 6 : rms > audibleLevel - 6;
            if (window.seen.meter === null && moved) window.seen.meter = now;
        });
        window.observer.observe(box, { attributes: true });
    """
    engine("session.stopAudio", {"app": "nav"})
    engine("session.deactivate", {"app": "nav"})
    wait.until(lambda d: music("state") == "audible")
    # The level every round is measured against: the meter once it holds still (its last ten
    # readings, about four of its lines, within 1 dB). The first reading above may have been
    # taken while the music still rose, which a busy machine makes likelier.
    readings = []

    def settled(d):
        readings.append(float(music("rms")))
        return len(readings) >= 10 and max(readings[-10:]) - min(readings[-10:]) < 1

    wait.until(settled)
    audible = readings[-1]
    rounds = {"duckState": [], "duckMeter": [], "unduckState": [], "unduckMeter": []}
    for _ in range(10):
        for action, wanted, state_key, meter_key in [("session.activate", "ducked", "duckState", "duckMeter"),
                                                     ("session.deactivate", "audible", "unduckState", "unduckMeter")]:
            # Each round starts from the other state, settled: the meter within 3 dB of where it goes.
            if wanted == "ducked":
                wait.until(lambda d: float(music("rms")) > audible - 3)
            else:
                wait.until(lambda d: float(music("rms")) < audible - 9)
                engine("session.stopAudio", {"app": "nav"})  # a playing session may not be deactivated
            driver.execute_script(watch, wanted, audible)
            sent = time.time() * 1000
            reply = engine(action, {"app": "nav"})
            assert "result" in reply, reply
            wait.until(lambda d: d.execute_script("return window.seen.state !== null && window.seen.meter !== null"))
            seen = driver.execute_script("return window.seen")
            rounds[state_key].append(seen["state"] - sent)
            rounds[meter_key].append(seen["meter"] - sent)
            if wanted == "ducked":
                result.setdefault("duckedText", driver.execute_script(
                    "return document.querySelector('g.app[data-app=music] .state').textContent"))
    for key, values in rounds.items():
        values.sort()
        result[key] = {"median": statistics.median(values), "p99": values[min(len(values) - 1, int(len(values) * 0.99))],
                       "max": values[-1], "all": values}
    result["timeline"] = driver.execute_script(
        "return [...document.querySelectorAll('#timeline li')].slice(0, 40).map(li => li.textContent)")

    # A control: select the music app, set its frequency on the page.
    driver.find_element(By.CSS_SELECTOR, "g.app[data-app=music] .title").click()
    row = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#parameters .parameter[data-param=frequency]"))
    number = row.find_element(By.CSS_SELECTOR, "input[type=number]")
    number.clear()
    number.send_keys("523.25")
    row.find_element(By.TAG_NAME, "button").click()
    wait.until(lambda d: abs(float(d.find_element(By.CSS_SELECTOR, "#parameters .parameter[data-param=frequency] input[type=number]")
                                   .get_attribute("value")) - 523.25) < 0.01)

    # A refusal, shown as the command line shows it.
    driver.find_element(By.ID, "connect-from").send_keys("music:out")
    driver.find_element(By.ID, "connect-to").send_keys("speakers:in_99")
    driver.find_element(By.ID, "connect").click()
    wait.until(lambda d: d.find_element(By.ID, "refusal").is_displayed())
    result["refusal"] = driver.find_element(By.ID, "refusal").text

    if screenshot:
        driver.execute_script(watch, "ducked", audible)
        engine("session.activate", {"app": "nav"})
        wait.until(lambda d: d.execute_script("return window.seen.state !== null && window.seen.meter !== null"))
        driver.find_element(By.CSS_SELECTOR, "g.app[data-app=nav] .title").click()
        time.sleep(0.3)  # the meters' next lines, for the picture only
        driver.save_screenshot(screenshot)
finally:
    driver.quit()
print(json.dumps(result))
