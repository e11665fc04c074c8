import type { Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { LiveTask } from './live-task.js';

/** The tasks this process is running, by id; new ones are refused once shutting down. */
export class LiveTasks {
  private readonly tasks = new Map<string, LiveTask>();
  private closing = false;

  /** The running task of this user with this id, if any (another user's is not found). */
  get(taskId: string, userId: string): LiveTask | undefined {
    const task = this.tasks.get(taskId);
    return task?.userId === userId ? task : undefined;
  }

  /** True while any user's run of this task goes on here (a second run of it must not start). */
  has(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  /** Registers a task about to run; it leaves the registry when its run ends. */
  begin(userId: string, initial: Task): LiveTask {
    if (this.closing)
      throw new UnsupportedOperationError(
        'This server is shutting down and starts no new tasks. Retry against another instance, or once it is back.',
      );
    const task = new LiveTask(userId, initial);
    this.tasks.set(task.id, task);
    void task.ended.then(() => {
      if (this.tasks.get(task.id) === task) this.tasks.delete(task.id);
    });
    return task;
  }

  /**
   * Refuses new tasks, lets running ones finish for up to `gracePeriodMs`, then cancels the rest
   * (each stores its cancellation) and waits for them as long again.
   */
  async shutdown(gracePeriodMs: number): Promise<void> {
    this.closing = true;
    if (await this.idle(gracePeriodMs)) return;
    for (const task of this.tasks.values())
      task.cancel(`The server shut down; the task was cancelled after a grace period of ${gracePeriodMs} ms.`);
    await this.idle(gracePeriodMs);
  }

  private async idle(timeoutMs: number): Promise<boolean> {
    if (this.tasks.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([Promise.all([...this.tasks.values()].map((t) => t.ended)).then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
