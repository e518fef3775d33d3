import { countdownText } from './offer-expiry.js';

/** Moves every countdown under `root` (the elements with `data-expires-at`) to `now`: the page calls it each second. */
export function tickCountdowns(root: ParentNode, now: number): void {
  for (const e of root.querySelectorAll<HTMLElement>('[data-expires-at]')) {
    e.textContent = countdownText(Number(e.getAttribute('data-expires-at')), now);
  }
}
