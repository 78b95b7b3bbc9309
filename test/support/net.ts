// Whether a listener is gone: a TCP connection to `url`'s host and port is refused.
import { connect } from "node:net";

export function refusesConnections(url: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const u = new URL(url);
    const s = connect(Number(u.port), u.hostname);
    s.on("connect", () => (s.destroy(), resolve(false)));
    s.on("error", () => resolve(true));
  });
}
