/**
 * The page's own small memory (consent given, the document chosen, the session link's token):
 * `sessionStorage` where the browser allows it, else a map that lives as long as the page. A
 * browser that blocks third-party storage throws `SecurityError` on the mere read of
 * `sessionStorage` in an embedded flow (audit N12); the flow must still run, it only forgets on reload.
 */
const memory = new Map<string, string>();

/** `sessionStorage`, or null where reading it throws (blocked third-party storage). */
function browserStorage(): Storage | null {
  try {
    const storage = window.sessionStorage;
    // Some browsers hand out the object and throw on first use instead.
    storage.getItem('idv:probe');
    return storage;
  } catch {
    return null;
  }
}

/** Reads a value this page (or this tab, where storage is allowed) kept. */
export function readKept(key: string): string | null {
  const storage = browserStorage();
  return storage ? storage.getItem(key) : (memory.get(key) ?? null);
}

/** Keeps a value for this tab (or, where storage is blocked, for this page). */
export function keep(key: string, value: string): void {
  const storage = browserStorage();
  if (storage) {
    try {
      storage.setItem(key, value);
      return;
    } catch {
      // Full or refused: the page's memory still serves this visit.
    }
  }
  memory.set(key, value);
}
