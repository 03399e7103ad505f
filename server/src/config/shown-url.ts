// A URL as lockstep shows it anywhere (lockstep config, lockstep.session, --debug, error
// messages, the transcript): scheme, host, port and path; no user or password, each
// query value replaced by "…" (the names kept, to recognise it), no fragment. An endpoint
// like https://user:PASSWORD@host/v1?api-key=K is how some providers take a key.

export function shownUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return scrubUrls(text);
  }
  if (url.username === "" && url.password === "" && url.search === "" && url.hash === "") return text;
  const names = [...url.searchParams.keys()];
  const query = names.length > 0 ? `?${names.map((n) => `${encodeURIComponent(n)}=…`).join("&")}` : "";
  return `${url.protocol}//${url.host}${url.pathname}${query}`;
}

// Scheme://…: up to the first character that cannot be in a URL written in prose or JSON.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`\\]+/gi;

/** Every URL in a text (a log line, a message) shown as shownUrl shows it. */
export function scrubUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (found) => {
    if (!/[@?#]/.test(found)) return found;
    try {
      new URL(found);
    } catch {
      return found.replace(/\/\/[^/@]*@/, "//");
    }
    return shownUrl(found);
  });
}
