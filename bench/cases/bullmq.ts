/** BullMQ on the same server: `Queue.add`, and `addBulk` of 10 and 100. */
import type { Queue } from 'bullmq';
import { type BenchCase, PAYLOAD_OBJECT } from '../case.js';

// BullMQ sends its Lua with EVALSHA; addBulk pipelines one script call per job.
const TOP_LEVEL = ['evalsha', 'eval'];

export function bullAddCase(queue: Queue): BenchCase {
  return {
    id: 'bullmq.add',
    label: 'BullMQ Queue.add, sequential',
    side: 'bullmq',
    jobsPerUnit: 1,
    topLevel: TOP_LEVEL,
    round: async () => () => queue.add('job', PAYLOAD_OBJECT),
  };
}

export function bullBulkCase(queue: Queue, size: number, inFlight = 1): BenchCase {
  const jobs = Array.from({ length: size }, () => ({ name: 'job', data: PAYLOAD_OBJECT }));
  return {
    id: `bullmq.bulk${size}${inFlight > 1 ? `.x${inFlight}` : ''}`,
    label: `BullMQ addBulk(${size})${inFlight > 1 ? `, ${inFlight} in flight` : ''}`,
    side: 'bullmq',
    jobsPerUnit: size,
    inFlight,
    topLevel: TOP_LEVEL,
    round: async () => () => queue.addBulk(jobs),
  };
}
