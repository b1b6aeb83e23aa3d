/** What tests of every workspace share (a devDependency only). */
export { eventually, waitFor } from './eventually.js';
export { freePort } from './ports.js';
export { sample } from './prometheus.js';
export { readHaproxyStats, type HaproxyStats } from './haproxy.js';
export { startReceiver, statusByPath, type Answer, type Receiver, type ReceivedDelivery, type ReceiverOptions } from './receiver.js';
export { cookiePair, csrfOf } from './web-forms.js';
export { MACHINE_REDIS_URL, redisCli, redisKeys, removeRedisKeys, startOwnRedis, type OwnRedis } from './redis.js';
export { generateSshKey, type GeneratedSshKey } from './ssh-keys.js';
export { parentPid } from './processes.js';
