import { mean, median, range } from "./stats.js";

export function report(name, values) {
  return `${name}: mean ${mean(values).toFixed(2)}, median ${median(values)}, range ${range(values)}`;
}
