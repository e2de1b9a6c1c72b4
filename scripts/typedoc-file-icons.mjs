// TypeDoc plugin (typedoc.json): icons that load from file:// without console errors. The default
// theme points every icon at assets/icons.svg#name, an external file Chromium refuses to load into
// a file:// page (logging an error for each) before the theme's icons.js swaps the links for the
// same sprite, which it inlines into every page. Linking to #name from the start uses only the
// inlined sprite, from file:// and http alike.
import { PageEvent } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(PageEvent.END, (page) => {
    page.contents = page.contents?.replace(/href="[^"]*assets\/icons\.svg#/g, 'href="#');
  });
}
