// `node --import` this file to append the URL of every file module the process loads to the file
// named by RECORD_MODULES, one per line (module hooks run on their own thread).
import { register } from 'node:module';

register('./record-modules-hook.mjs', import.meta.url, { data: { out: process.env.RECORD_MODULES } });
