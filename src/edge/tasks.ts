/** The task records and service as the protocols' batch endpoints see them (protocols reach domain only through edge). */
export type { FileRecord, ItemError, ItemRecord, TaskKind, TaskRecord, TaskStatus } from '../domain/tasks/records.ts'
export type { TaskService } from '../domain/tasks/service.ts'
export { FileTooLargeError } from '../domain/tasks/service.ts'
export { describeBytes, gatewayErrorOf, maxItems } from '../domain/tasks/rules.ts'
export { presentTask } from '../domain/tasks/present.ts'
