// Account screen: the calling key's tenant, self-service.
//
// What it shows:
//   - quota (GET /v1/me/quota): one bar per counter (calls, PDFs, AI per
//     calendar month; towers per key) with used, limit, remaining and
//     reset; a counter without a cap shows the API's reason instead of a
//     bar (never the word "unlimited"); the rate limit of each route group;
//   - keys (GET /tenant/keys): create (POST /tenant/keys), rotate (POST
//     /tenant/keys/{id}/rotate) and revoke (POST /tenant/keys/{id}/revoke),
//     each after a confirmation; a new plain key is shown once with a copy
//     button. A rotated key keeps working for the API's 24-hour grace;
//     revoking it ends that at once;
//   - audit log (GET /tenant/audit): action filter, newest first, paged
//     with next_before;
//   - data export (GET /tenant/me/data/export, saved as a JSON file) and
//     forget (POST /tenant/me/data/forget), which is sent only once the
//     user has typed the literal confirmation text the API requires.
// Admin keys are refused by the tenant routes (403): for them the screen
// shows the quota (not metered, with the API's reason) and points to the
// Admin screen.
import { h, fill, uid, card, row, select, table, facts, meter, showError, epoch, iso, busy, confirm, secret, auditPager } from '../formkit.js';

const forgetText = 'DELETE MY DATA';
const auditPage = 25;
const knownActions = ['tower.register', 'job.submit', 'job.cancel', 'report.pdf', 'tenant.key.create', 'tenant.key.rotate',
  'tenant.key.revoke', 'tenant.branding.set', 'tenant.dsar.export', 'tenant.dsar.forget.soft', 'admin.key.issue',
  'admin.dsar.export', 'admin.dsar.erase.soft', 'observation.rejected.no_consent'];

export default {
  id: 'account',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Conta',
      quota: 'Cota do mês', tier: 'Plano', month: 'Mês', notMetered: 'Sem medição: {reason}',
      calls: 'Chamadas à API', pdfs: 'Relatórios PDF', ai: 'Explicações por IA', towers: 'Torres cadastradas por esta chave',
      used: '{used} de {limit} usados, {remaining} restantes', usedNoCap: '{used} usados; sem teto: {reason}',
      resets: 'renova em {date}', perKey: 'por chave, sem renovação',
      rates: 'Limites de taxa', group: 'Grupo', perMinute: 'Por minuto', remaining: 'Disponíveis agora', resetIn: 'Recarga total',
      keys: 'Chaves de API', keyList: 'Chaves do tenant', prefix: 'Prefixo', role: 'Papel', state: 'Estado', created: 'Criada', lastUsed: 'Último uso',
      grace: 'Aceita até', actions: 'Ações', thisKey: '(esta sessão)',
      active: 'ativa', rotating: 'em rotação', revoked: 'revogada', erased: 'apagada',
      'tenant-admin': 'administrador do tenant', member: 'membro', 'read-only': 'somente leitura',
      rotate: 'Rotacionar {prefix}', revoke: 'Revogar {prefix}',
      rotateConfirm: 'Rotacionar a chave {prefix}? Uma nova chave é criada; a antiga continua aceita por 24 horas.',
      rotateSelf: ' Esta é a chave desta sessão: entre com a nova chave antes do fim do prazo.',
      revokeConfirm: 'Revogar a chave {prefix} agora? Ela passa a ser recusada imediatamente.',
      revokeSelf: ' Esta é a chave desta sessão: a sessão termina.',
      yesRotate: 'Rotacionar', yesRevoke: 'Revogar', no: 'Cancelar',
      newKey: 'Criar chave', newRole: 'Papel da nova chave',
      secret: 'Nova chave de API', secretNote: 'Copie agora: ela é mostrada só esta vez e não pode ser recuperada.',
      copy: 'Copiar chave', copied: 'Chave copiada.', done: 'Já copiei',
      audit: 'Registro de auditoria', auditEntries: 'Entradas de auditoria', action: 'Ação', actionHint: 'Nome exato, ex.: tenant.key.rotate. Vazio: todas.',
      filter: 'Filtrar', older: 'Mais antigas', newest: 'Mais recentes', time: 'Quando', actor: 'Chave', route: 'Rota',
      params: 'Parâmetros', ip: 'IP', requestId: 'Request id', noEntries: 'Nenhuma entrada.',
      privacy: 'Seus dados (LGPD)',
      exportText: 'Baixe tudo o que o appliance guarda do seu tenant: chaves, auditoria, jobs, observações, torres, cobrança.',
      export: 'Baixar meus dados (JSON)',
      forgetIntro: 'Apagar os dados do tenant é irreversível: todas as chaves deixam de funcionar na hora e tudo é excluído em 30 dias.',
      forgetLabel: 'Para confirmar, digite DELETE MY DATA (exatamente assim, em inglês)',
      forget: 'Apagar meus dados',
      forgotten: 'Pedido {id} recebido. As chaves do tenant foram apagadas; a exclusão definitiva está prevista para {date}.',
      ownKeyOnly: 'Com o seu papel você pode rotacionar a sua própria chave; criar e revogar chaves é do administrador do tenant.',
      privacyAdminOnly: 'A exportação e a exclusão dos dados do tenant são feitas por uma chave de administrador do tenant.',
      adminNote: 'Chaves de administrador não usam as rotas de autoatendimento do tenant (chaves, auditoria, LGPD): use a tela Admin.',
    },
    en: {
      title: 'Account',
      quota: 'Monthly quota', tier: 'Tier', month: 'Month', notMetered: 'Not metered: {reason}',
      calls: 'API calls', pdfs: 'PDF reports', ai: 'AI explanations', towers: 'Towers registered by this key',
      used: '{used} of {limit} used, {remaining} left', usedNoCap: '{used} used; no cap: {reason}',
      resets: 'resets {date}', perKey: 'per key, no reset',
      rates: 'Rate limits', group: 'Group', perMinute: 'Per minute', remaining: 'Available now', resetIn: 'Full again in',
      keys: 'API keys', keyList: 'Keys of the tenant', prefix: 'Prefix', role: 'Role', state: 'State', created: 'Created', lastUsed: 'Last used',
      grace: 'Accepted until', actions: 'Actions', thisKey: '(this session)',
      active: 'active', rotating: 'rotating', revoked: 'revoked', erased: 'erased',
      'tenant-admin': 'tenant admin', member: 'member', 'read-only': 'read-only',
      rotate: 'Rotate {prefix}', revoke: 'Revoke {prefix}',
      rotateConfirm: 'Rotate key {prefix}? A new key is made; the old one stays accepted for 24 hours.',
      rotateSelf: ' This is this session\'s key: sign in with the new key before the grace ends.',
      revokeConfirm: 'Revoke key {prefix} now? It is refused from this moment on.',
      revokeSelf: ' This is this session\'s key: the session ends.',
      yesRotate: 'Rotate', yesRevoke: 'Revoke', no: 'Cancel',
      newKey: 'Create key', newRole: 'Role of the new key',
      secret: 'New API key', secretNote: 'Copy it now: it is shown this once and cannot be recovered.',
      copy: 'Copy key', copied: 'Key copied.', done: 'I have copied it',
      audit: 'Audit log', auditEntries: 'Audit entries', action: 'Action', actionHint: 'Exact name, e.g. tenant.key.rotate. Empty: all.',
      filter: 'Filter', older: 'Older', newest: 'Newest', time: 'When', actor: 'Key', route: 'Route',
      params: 'Parameters', ip: 'IP', requestId: 'Request id', noEntries: 'No entries.',
      privacy: 'Your data (LGPD)',
      exportText: 'Download everything the appliance holds about your tenant: keys, audit log, jobs, observations, towers, billing.',
      export: 'Download my data (JSON)',
      forgetIntro: 'Erasing the tenant\'s data is irreversible: every key stops working at once and everything is deleted within 30 days.',
      forgetLabel: 'To confirm, type DELETE MY DATA (exactly as shown)',
      forget: 'Erase my data',
      forgotten: 'Request {id} received. The tenant\'s keys are erased; the final deletion is due {date}.',
      ownKeyOnly: 'Your role may rotate its own key; creating and revoking keys is for the tenant admin.',
      privacyAdminOnly: 'Exporting and erasing the tenant\'s data is done with a tenant-admin key.',
      adminNote: 'Admin keys do not use the tenant self-service routes (keys, audit log, privacy): use the Admin screen.',
    },
  },

  async render(root, ctx) {
    const t = ctx.t;
    const ac = new AbortController();
    const opt = { signal: ac.signal };
    const admin = Boolean(ctx.session && ctx.session.admin);
    // Key creation and privacy requests are tenant-admin only; a session
    // whose role is known to be another one is not offered them (an
    // unknown role is: the API then answers for itself).
    const role = ctx.session ? ctx.session.role : null;
    const manager = !role || role === 'tenant-admin';

    const quotaBox = h('div');
    root.append(card(t('quota'), quotaBox));

    const loadQuota = async () => {
      try {
        const q = await ctx.api('GET', '/v1/me/quota', opt);
        const items = q.counters.map((c) => {
          const label = t(c.name);
          const when = c.period === 'month' ? (c.reset_at ? t('resets', { date: iso(ctx, c.reset_at) }) : '') : t('perKey');
          if (c.limit === null) {
            return h('li', { class: 'fk-quota', 'data-counter': c.name }, h('span', { class: 'fk-quota-name' }, label),
              h('span', null, t('usedNoCap', { used: ctx.fmt.num(c.used, 0), reason: c.reason || '' })), h('span', { class: 'fk-hint' }, when));
          }
          return h('li', { class: 'fk-quota', 'data-counter': c.name }, h('span', { class: 'fk-quota-name' }, label),
            meter(c.used, c.limit, label),
            h('span', null, t('used', { used: ctx.fmt.num(c.used, 0), limit: ctx.fmt.num(c.limit, 0), remaining: ctx.fmt.num(c.remaining, 0) })),
            c.reason ? h('span', { class: 'fk-hint' }, c.reason) : null,
            h('span', { class: 'fk-hint' }, when));
        });
        const head = [[t('tier'), q.tier], [t('month'), `${q.month} (${q.timezone})`]];
        fill(quotaBox, facts(head),
          q.metered ? null : h('p', null, t('notMetered', { reason: q.reason || '' })),
          h('ul', { class: 'fk-quotas' }, items),
          q.rate_limits.length ? table(t('rates'), [
            { label: t('group'), cell: (r) => r.group },
            { label: t('perMinute'), cell: (r) => ctx.fmt.num(r.limit_per_minute, 0), num: true },
            { label: t('remaining'), cell: (r) => ctx.fmt.num(r.remaining, 0), num: true },
            { label: t('resetIn'), cell: (r) => ctx.fmt.unit(r.reset_s, 's', 0), num: true },
          ], q.rate_limits) : null);
      } catch (err) {
        showError(ctx, quotaBox, err);
      }
    };
    loadQuota();

    if (admin) {
      root.append(h('p', { class: 'fk-note' }, t('adminNote')));
      return () => ac.abort();
    }

    // Keys.
    const keysBox = h('div');
    const secretBox = h('div');
    const keysErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const newRole = select([['member', t('member')], ['read-only', t('read-only')], ['tenant-admin', t('tenant-admin')]], { name: 'tenant_role' }, 'member');
    const create = h('button', { type: 'button', 'data-action': 'create-key' }, t('newKey'));
    root.append(card(t('keys'), secretBox, keysErr, keysBox,
      manager ? h('div', { class: 'fk-inline' }, row(t('newRole'), newRole), h('div', { class: 'fk-actions' }, create)) : h('p', { class: 'fk-hint' }, t('ownKeyOnly'))));

    const showSecret = (plain) => {
      const done = h('button', { type: 'button', class: 'fk-secondary' }, t('done'));
      const box = secret(ctx, t('secret'), plain, t('secretNote'), t('copy'), t('copied'));
      box.append(done);
      done.addEventListener('click', () => { secretBox.replaceChildren(); create.focus(); });
      fill(secretBox, box);
      box.querySelector('input').focus();
    };

    const isSelf = (k) => Boolean(ctx.session && ctx.session.keyPrefix && k.prefix === ctx.session.keyPrefix);

    const keyAction = async (button, k, kind) => {
      keysErr.replaceChildren();
      const self = isSelf(k) ? t(kind === 'rotate' ? 'rotateSelf' : 'revokeSelf') : '';
      const msg = t(kind === 'rotate' ? 'rotateConfirm' : 'revokeConfirm', { prefix: k.prefix }) + self;
      if (!(await confirm(ctx, msg, t(kind === 'rotate' ? 'yesRotate' : 'yesRevoke'), t('no')))) return;
      try {
        const res = await busy(button, () => ctx.api('POST', `/tenant/keys/${encodeURIComponent(k.key_id)}/${kind}`, opt));
        if (kind === 'rotate') showSecret(res.api_key);
        await loadKeys();
      } catch (err) {
        showError(ctx, keysErr, err);
      }
    };

    const loadKeys = async () => {
      try {
        const list = await ctx.api('GET', '/tenant/keys', opt);
        fill(keysBox, table(t('keyList'), [
          { label: t('prefix'), cell: (k) => [h('code', null, k.prefix), isSelf(k) ? ` ${t('thisKey')}` : ''] },
          { label: t('role'), cell: (k) => t(k.tenant_role) },
          { label: t('state'), cell: (k) => h('span', { 'data-key-state': k.state }, t(k.state)) },
          { label: t('tier'), cell: (k) => k.tier },
          { label: t('created'), cell: (k) => epoch(ctx, k.created_unix) },
          { label: t('lastUsed'), cell: (k) => epoch(ctx, k.last_used_unix) },
          { label: t('grace'), cell: (k) => epoch(ctx, k.grace_until_unix) },
          {
            label: t('actions'),
            cell: (k) => {
              const cell = h('div', { class: 'fk-actions fk-tight' });
              if (k.state === 'active' && (manager || isSelf(k))) {
                const b = h('button', { type: 'button', 'data-action': 'rotate', 'data-key-id': k.key_id }, t('rotate', { prefix: k.prefix }));
                b.addEventListener('click', () => keyAction(b, k, 'rotate'));
                cell.append(b);
              }
              if (manager && (k.state === 'active' || k.state === 'rotating')) {
                const b = h('button', { type: 'button', class: 'fk-danger', 'data-action': 'revoke', 'data-key-id': k.key_id }, t('revoke', { prefix: k.prefix }));
                b.addEventListener('click', () => keyAction(b, k, 'revoke'));
                cell.append(b);
              }
              return cell;
            },
          },
        ], list.keys));
      } catch (err) {
        showError(ctx, keysBox, err);
      }
    };

    create.addEventListener('click', async () => {
      keysErr.replaceChildren();
      try {
        const res = await busy(create, () => ctx.api('POST', '/tenant/keys', { ...opt, json: { tenant_role: newRole.value } }));
        showSecret(res.api_key);
        await loadKeys();
      } catch (err) {
        showError(ctx, keysErr, err);
      }
    });
    loadKeys();

    // Audit log.
    const actionList = h('datalist', { id: uid('fk-actions') }, knownActions.map((a) => h('option', { value: a })));
    const action = h('input', { type: 'text', name: 'action', list: actionList.id, maxlength: '100', autocomplete: 'off', spellcheck: 'false' });
    const filter = h('button', { type: 'submit' }, t('filter'));
    const auditBox = h('div', { 'data-part': 'audit' });
    const auditForm = h('form', { class: 'fk-inline', role: 'search' }, row(t('action'), action, t('actionHint')), actionList, h('div', { class: 'fk-actions' }, filter));
    root.append(card(t('audit'), auditForm, auditBox));

    const loadAudit = auditPager(ctx, {
      box: auditBox, path: '/tenant/audit', opt, pageSize: auditPage,
      filters: () => (action.value.trim() ? { action: action.value.trim() } : {}),
      caption: t('auditEntries'), empty: t('noEntries'), newest: t('newest'), older: t('older'),
      columns: [
        { label: t('time'), cell: (e) => iso(ctx, e.time) },
        { label: t('action'), cell: (e) => h('code', null, e.action) },
        { label: t('actor'), cell: (e) => e.actor_key || '–' },
        { label: t('route'), cell: (e) => e.route || '–' },
        { label: t('params'), cell: (e) => Object.entries(e.params || {}).map(([k, v]) => `${k}=${v}`).join('; ') || '–' },
        { label: t('ip'), cell: (e) => e.ip || '–' },
        { label: t('requestId'), cell: (e) => e.request_id || '–' },
      ],
    });
    auditForm.addEventListener('submit', (ev) => { ev.preventDefault(); busy(filter, () => loadAudit(null)); });
    loadAudit(null);

    // Privacy: export and forget.
    const privErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const exportBtn = h('button', { type: 'button', 'data-action': 'export' }, t('export'));
    exportBtn.addEventListener('click', async () => {
      privErr.replaceChildren();
      try {
        const day = new Date().toISOString().slice(0, 10);
        await busy(exportBtn, () => ctx.download('/tenant/me/data/export', `linkplan-meus-dados-${day}.json`));
      } catch (err) {
        showError(ctx, privErr, err);
      }
    });
    const typed = h('input', { type: 'text', name: 'confirmation', autocomplete: 'off', spellcheck: 'false' });
    const forget = h('button', { type: 'submit', class: 'fk-danger', disabled: true, 'data-action': 'forget' }, t('forget'));
    typed.addEventListener('input', () => { forget.disabled = typed.value !== forgetText; });
    const forgetOut = h('div', { 'aria-live': 'polite', 'data-part': 'forget-out' });
    const forgetForm = h('form', { class: 'fk-form', 'data-no-keep': true }, h('p', null, t('forgetIntro')), row(t('forgetLabel'), typed), h('div', { class: 'fk-actions' }, forget));
    forgetForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      privErr.replaceChildren();
      if (typed.value !== forgetText) return;
      try {
        const res = await busy(forget, () => ctx.api('POST', '/tenant/me/data/forget', { ...opt, json: { confirmation: typed.value } }));
        fill(forgetOut, h('p', { role: 'status', class: 'fk-note' }, t('forgotten', { id: res.dsar_request_id, date: epoch(ctx, res.erase_scheduled_at) })));
        typed.value = '';
        forget.disabled = true;
      } catch (err) {
        showError(ctx, privErr, err);
      }
    });
    root.append(card(t('privacy'), manager ? [h('p', null, t('exportText')), h('div', { class: 'fk-actions' }, exportBtn), forgetForm, forgetOut, privErr]
      : h('p', { class: 'fk-note' }, t('privacyAdminOnly'))));

    return () => ac.abort();
  },
};
