"""The deep-link contract, in Chromium: every stepper's "link to this step", opened in a new page, lands there."""

from __future__ import annotations

from .browser import offline_page


def check_every_step_link(browser, uri: str, only: tuple[int, ...] | None = None) -> int:
    """For every stepper on the page at ``uri`` (``only``: those at these positions) - one behind a
    selector option too - show it,
    move it to a step before its last, press "link to this step", open the address it puts in
    the address bar in a new page, and assert that page shows that option, that stepper at that
    step, scrolled into view, without script errors. Returns how many steppers it checked."""
    page = offline_page(browser, uri)
    steppers = page.locator(".hwl-stepper")
    count = steppers.count()
    for k in range(count) if only is None else only:
        stepper = steppers.nth(k)
        stepper_id = stepper.get_attribute("id")
        variant = stepper.evaluate("e => { const v = e.closest('.hwl-pick-variant'); return v ? v.id : null }")
        picker = page.locator(f"select.hwl-pick:has(option[value='{variant}'])") if variant else None
        if picker is not None and picker.count():
            picker.select_option(variant)
        slider = stepper.locator("input[type=range]")
        step = max(1, int(slider.get_attribute("max")) - 1)
        slider.fill(str(step))
        stepper.locator("button.link").click()
        url = page.url
        assert url.endswith(f"#{stepper_id}/step={step}"), (stepper_id, url)
        fresh = offline_page(browser, url)
        landed = fresh.locator(f"[id='{stepper_id}']")
        assert landed.is_visible(), stepper_id
        assert landed.locator("input[type=range]").input_value() == str(step), stepper_id
        if picker is not None and picker.count():
            shown = fresh.locator(f"select.hwl-pick:has(option[value='{variant}'])")
            assert shown.input_value() == variant, stepper_id
        box = landed.bounding_box()
        assert box is not None and -2 <= box["y"] < fresh.viewport_size["height"], (stepper_id, box)   # sub-pixel
        assert fresh.errors == [], (stepper_id, fresh.errors)
        fresh.close()
    assert page.errors == []
    page.close()
    return count if only is None else len(only)
