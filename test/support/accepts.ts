/** Whether a check accepts what it is given: it throws (an AppError) when it refuses. */
export function accepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}
