import { el } from './dom.js';
import type { RenderedMessage } from './message-preview.js';

/** One message as a WhatsApp chat bubble: header, body, footer, then its buttons under it; `meta` says which row. */
export function bubble(message: RenderedMessage, meta: { number: number; phone: string }): HTMLElement {
  const header = message.header;
  let head: HTMLElement | null = null;
  if (header?.kind === 'text') head = el('div', { class: 'bubble-header' }, [header.text]);
  else if (header?.kind === 'media')
    head = el('div', { class: 'bubble-media' }, [`${header.format.toLowerCase()}: ${header.url || '(no link)'}`]);
  else if (header?.kind === 'location') head = el('div', { class: 'bubble-media' }, ['location']);
  const buttons =
    message.buttons.length === 0
      ? null
      : el(
          'div',
          { class: 'bubble-buttons' },
          message.buttons.map((b) => el('span', { class: 'bubble-button' }, [b])),
        );
  return el('div', { class: 'bubble-wrap', 'data-row': meta.number }, [
    el('div', { class: 'bubble-meta' }, [`row ${meta.number} · ${meta.phone}`]),
    el('div', { class: 'bubble' }, [
      head,
      el('div', { class: 'bubble-body' }, [message.body]),
      message.footer ? el('div', { class: 'bubble-footer' }, [message.footer]) : null,
    ]),
    buttons,
  ]);
}
