import type { TaskService } from '../tasks/task.ts';
import type { Admission } from './admission.ts';

/**
 * The task service as routes and agents see it: every submission first holds its price from the
 * key's credit (at the prices of that moment: a later price change does not touch it), and the
 * hold is tied to the task; the task's end settles or releases it (CreditAccounts.reconcile).
 * A submission that fails gives the hold back. Everything else is the wrapped service's.
 */
export function withCreditHolds<Service extends TaskService>(service: Service, admission: Admission): Service {
  const submit: TaskService['submit'] = async (submission) => {
    const hold = await admission.holdForTask(submission);
    try {
      const task = await service.submit(submission);
      await hold?.attach(task.id);
      return task;
    } catch (error) {
      await hold?.release();
      throw error;
    }
  };
  // The service's own methods and properties, through the prototype; only submit is replaced.
  const wrapped = Object.create(service) as Service;
  Object.defineProperty(wrapped, 'submit', { value: submit, enumerable: true });
  return wrapped;
}
