"""Renders dama-web/web/icon.svg to the PNG icons of the web app manifest (192 and 512 px),
with Debian's Chromium through Playwright for Python: python3 docs/data/icons.py"""
import os

from playwright.sync_api import sync_playwright

web = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dama-web", "web")
svg = open(os.path.join(web, "icon.svg")).read()
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                 args=["--no-sandbox", "--disable-gpu"])
    for size in (192, 512):
        page = browser.new_page(viewport={"width": size, "height": size})
        sized = svg.replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
        page.set_content("<html><body style='margin:0'>" + sized + "</body></html>")
        page.screenshot(path=os.path.join(web, f"icon-{size}.png"))
    browser.close()
