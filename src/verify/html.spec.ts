import { describe, expect, it } from "vitest";

import { escapeHtml, html, SafeHtml, styleHashSource, visibleId } from "./html";

describe("html", () => {
  it("escapes every interpolated value, in text and in attributes", () => {
    const id = `<script>alert("x")</script>&'\``;
    expect(html`<p title="${id}">${id}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&#96;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&#96;</p>',
    );
  });

  it("keeps SafeHtml made by html, joins arrays and leaves null and undefined empty", () => {
    const item = (text: string) => html`<li>${text}</li>`;
    // prettier-ignore
    const list = html`<ul>${["a<b", "c"].map(item)}</ul>${null}${undefined}${12n}`;
    expect(list.value).toBe("<ul><li>a&lt;b</li><li>c</li></ul>12");
    expect(html`${new SafeHtml("<b>")}`.value).toBe("<b>");
  });

  it("escapes the characters that end text or a quoted attribute and nothing else", () => {
    expect(escapeHtml("Konzert für Ölbaum = 5 € 🎫")).toBe("Konzert für Ölbaum = 5 € 🎫");
  });

  it("gives a style's CSP hash source", () => {
    expect(styleHashSource("body{}")).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
  });
});

describe("visibleId", () => {
  it("shows control, bidirectional and zero-width characters as their code points, and leaves the rest", () => {
    expect(visibleId("paid\u202Efdp.exe")).toBe("paid⟨U+202E⟩fdp.exe");
    expect(visibleId("a\u200Bb\tc\u0085\uFEFF")).toBe("a⟨U+200B⟩b⟨U+0009⟩c⟨U+0085⟩⟨U+FEFF⟩");
    expect(visibleId("שלום 𝄞 e\u0301 /?#%")).toBe("שלום 𝄞 e\u0301 /?#%");
  });
});
