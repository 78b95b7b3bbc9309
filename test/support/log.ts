// A logger that writes nothing, for engines under test.
import { createLogger, type Logger } from "../../src/log.js";

export const silentLogger: Logger = createLogger("silent", () => undefined);
