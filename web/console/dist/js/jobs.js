// jobs.js: following a job of GET /jobs/{id} from a screen, and its
// failure in the user's language. A job's error is the appliance's own
// English sentence; the reasons the job queue and the engines give (a
// quarantine after two crashes, interruptions, a layer deleted or changed
// since the job was submitted) are said here in pt-BR or English, any
// other after a translated lead, the API's sentence kept as the detail.

const STRINGS = {
  'pt-BR': {
    quarantined: 'O processo de cálculo ({who}) parou duas vezes durante este trabalho; ele foi posto de lado e não roda de novo sozinho.',
    interrupted: 'O processo de cálculo parou {n} vezes antes de terminar este trabalho.',
    layerDeleted: 'A camada de edificações foi apagada depois que o trabalho foi enviado.',
    sceneChanged: 'A cena da camada de edificações mudou desde o envio (terreno ou edificações): envie de novo.',
    canceled: 'O trabalho foi cancelado.',
    expired: 'O resultado do trabalho expirou.',
    other: 'O trabalho falhou',
    appliance: 'o equipamento',
    worker: 'o processo de traçado de raios',
  },
  en: {
    quarantined: 'The computing process ({who}) stopped twice during this job; it was set aside and is not run again by itself.',
    interrupted: 'The computing process stopped {n} times before this job finished.',
    layerDeleted: 'The building layer was deleted after the job was submitted.',
    sceneChanged: 'The building layer\'s scene changed since the job was submitted (terrain or buildings): submit it again.',
    canceled: 'The job was cancelled.',
    expired: 'The job\'s result expired.',
    other: 'The job failed',
    appliance: 'the appliance',
    worker: 'the ray-tracing worker',
  },
};

function words(ctx) {
  const s = STRINGS[ctx.lang] || STRINGS['pt-BR'];
  return (k, v) => s[k].replace(/\{(\w+)\}/g, (m, x) => (v && v[x] !== undefined ? String(v[x]) : m));
}

// TERMINAL are the states a job does not leave.
export const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'expired']);

// jobFailure is why a job did not succeed, in the user's language:
// { text, detail }, detail the API's own sentence when it says more.
export function jobFailure(ctx, job) {
  const w = words(ctx);
  const e = (job && job.error) || '';
  let m;
  if ((m = /^stopped the (.+) twice; quarantined/.exec(e))) return { text: w('quarantined', { who: m[1] === 'appliance' ? w('appliance') : w('worker') }), detail: e };
  if ((m = /^interrupted (\d+) times/.exec(e))) return { text: w('interrupted', { n: m[1] }), detail: e };
  if (/building layer \S+ was deleted/.test(e)) return { text: w('layerDeleted'), detail: e };
  if (/scene of building layer .* changed/.test(e)) return { text: w('sceneChanged'), detail: e };
  if (job && job.state === 'canceled') return { text: w('canceled'), detail: e };
  if (job && job.state === 'expired') return { text: w('expired'), detail: e };
  return { text: e ? `${w('other')}.` : w('other'), detail: e };
}

// followJob polls GET /jobs/{id} every ms (default 1 s) until the job is
// terminal, calling onJob(job) with each state (the first one given);
// it resolves with the last job. The screen's signal, or signal (the
// screen moved on to another job), ends it: a promise that never
// resolves then.
export async function followJob(ctx, job, onJob, { ms = 1000, signal } = {}) {
  const stop = signal ? AbortSignal.any([ctx.signal, signal]) : ctx.signal;
  const gone = () => new Promise(() => {});
  for (;;) {
    if (stop.aborted) return gone();
    onJob(job);
    if (TERMINAL.has(job.state)) return job;
    await new Promise((r) => {
      const timer = setTimeout(r, ms);
      stop.addEventListener('abort', () => clearTimeout(timer), { once: true });
    });
    if (stop.aborted) return gone();
    job = await ctx.api('GET', `/jobs/${encodeURIComponent(job.id)}`, { signal: stop });
  }
}
