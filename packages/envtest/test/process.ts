/** Whether a process with this pid is running: signal 0 checks for it without sending one. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
