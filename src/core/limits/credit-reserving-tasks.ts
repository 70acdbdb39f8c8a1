import type { TaskService } from '../tasks/task.ts';
import type { Admission } from './admission.ts';

/**
 * The task service as routes and agents see it: every submission first reserves the most its task
 * can cost from the key's credit (at the prices of that moment), and the reservation is tied to
 * the task; the task's end settles it to the real cost (Admission.taskEnded). A submission that
 * fails gives it all back. Everything else is the wrapped service's.
 */
export function withCreditReservations<Service extends TaskService>(service: Service, admission: Admission): Service {
  const submit: TaskService['submit'] = async (submission) => {
    const reservation = await admission.reserveForTask(submission);
    try {
      const task = await service.submit(submission);
      await reservation?.attach(task.id);
      return task;
    } catch (error) {
      await reservation?.release();
      throw error;
    }
  };
  // The service's own methods and properties, through the prototype; only submit is replaced.
  const wrapped = Object.create(service) as Service;
  Object.defineProperty(wrapped, 'submit', { value: submit, enumerable: true });
  return wrapped;
}
