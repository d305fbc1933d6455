// Admin screen: operator tasks with an admin key (lp_adm_).
//
// Every call that changes something needs a step-up TOTP code: the screen
// asks for it through ctx.adminTotp() right before the call and sends it as
// X-Admin-Totp, with the justification the API records in the audit log.
// Read-only admin routes (tenants, overdue requests, refresh history,
// admin audit) take no TOTP code, and none is asked for them: each 30 s code is accepted
// only once, so asking for reads would spend codes for nothing.
//
// What it shows:
//   - readiness: GET /health/ready (state, each check, offline flag,
//     version) and GET /platform/maturity (dependencies, hosting,
//     language-model provider);
//   - issue a key: POST /admin/keys (tier, owner, e-mail, role,
//     justification); the plain key is shown once with a copy button;
//   - tenants: the list of GET /admin/tenants (sorted by tenant id, paged
//     by its opaque cursor: first, previous and next pages; tier, key
//     counts, creation, erasure, branding name, observations), and the
//     white-label branding of a tenant by id (PUT
//     /admin/tenants/{tenant_id}/branding, which replaces the whole
//     branding); choosing a tenant in the list fills the form's tenant id;
//   - privacy requests: the overdue list (GET /admin/dsar/overdue) and the
//     export and erase of a subject by key prefix (POST
//     /admin/dsar/{prefix}/export|erase); the API keeps no list of past
//     requests beyond the overdue ones, so none is shown;
//   - tower source refresh history: GET /admin/towers/refreshes;
//   - admin audit: GET /admin/audit with action and tenant filters, paged.
// A session that is not an admin key sees only a note.
import { h, fill, uid, card, row, select, table, facts, showError, epoch, iso, busy, confirm, secret, saveJSON, auditPager } from '../formkit.js';

const tiers = ['Free', 'Starter', 'Pro', 'Business', 'Enterprise', 'Ultra'];
const auditPage = 25;
const tenantPage = 20;
const maxLogoBytes = 262144;

export default {
  id: 'admin',
  nav: true,
  // Shown in the navigation only to admin sessions (the shell's visible hook).
  visible: (session) => Boolean(session && session.admin),
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Admin',
      notAdmin: 'Esta tela precisa de uma chave de administrador (lp_adm_).',
      totpNote: 'Ações que alteram dados pedem o código TOTP de 6 dígitos do administrador e uma justificativa, gravada na auditoria.',
      ready: 'Prontidão', checks: 'Verificações de prontidão', status: 'Situação', state: 'Estado', offline: 'Sem chamadas externas', version: 'Versão',
      check: 'Verificação', result: 'Resultado', yes: 'sim', no: 'não',
      maturity: 'Plataforma', dependency: 'Dependência', kind: 'Tipo', detail: 'Detalhe',
      singleBinary: 'Binário único', cloudRequired: 'Exige serviço de nuvem', llm: 'Provedor de modelo de linguagem',
      llmActive: 'ativo: {provider}', llmInactive: 'inativo: {reason}',
      issue: 'Emitir chave', tier: 'Plano', email: 'E-mail do titular', owner: 'Titular (empresa ou pessoa)', role: 'Tipo de chave',
      roleTenant: 'cliente (lp_live_)', roleInternal: 'automação interna (lp_int_)',
      justification: 'Justificativa', justHint: 'De 10 a 1000 caracteres; vai para o registro de auditoria.',
      issueBtn: 'Emitir chave', issued: 'Chave emitida para o tenant {tenant}.',
      secret: 'Nova chave de API', secretNote: 'Copie agora: ela é mostrada só esta vez.', copy: 'Copiar chave', copied: 'Chave copiada.',
      keyId: 'Id da chave', prefix: 'Prefixo', tenant: 'Tenant',
      tenants: 'Tenants',
      tenantList: 'Tenants (por id)', keysCol: 'Chaves', keyCounts: '{active} ativa(s), {grace} em carência, {revoked} revogada(s)',
      created: 'Criado em', erasedCol: 'Apagado', erasedOn: 'sim, em {date}; exclusão definitiva em {hard}', observationsCol: 'Observações',
      obsCounts: '{links} enlaces, {cells} amostras de sinal', brandName: 'Nome da marca', ownerCol: 'Titular', emailCol: 'E-mail', choose: 'Usar na marca',
      chooseLabel: 'Usar o tenant {tenant} no formulário de marca', chosen: 'Tenant {tenant} escolhido para a marca.',
      firstPage: 'Primeiros', prevPage: 'Anteriores', nextPage: 'Próximos', noTenants: 'Nenhum tenant.',
      branding: 'Marca (white-label)',
      tenantsNote: 'Escolha um tenant na lista ou informe o id (t_…). O envio substitui a marca inteira: campos vazios são apagados.',
      tenantId: 'Id do tenant', displayName: 'Nome exibido', color: 'Cor principal', colorHint: '#RRGGBB, ou vazio para a cor neutra.',
      support: 'Contato de suporte', footer: 'Rodapé dos relatórios', logo: 'Logotipo (PNG ou SVG, até 256 KiB)',
      brandBtn: 'Salvar marca', branded: 'Marca do tenant {tenant} salva.',
      logoTooBig: 'O logotipo tem {size}; o máximo é 256 KiB.',
      dsar: 'Pedidos de titulares (LGPD)', overdue: 'Pedidos atrasados', overdueCount: '{count} pedido(s) atrasado(s).',
      request: 'Pedido', type: 'Tipo', reason: 'Motivo', subject: 'Titular', due: 'Prazo', requestedBy: 'Pedido por',
      answer_due: 'resposta atrasada', hard_delete_due: 'exclusão definitiva atrasada', export: 'exportação', erase: 'exclusão',
      self: 'titular', admin: 'administrador', received: 'recebido', processing: 'em andamento',
      dsarForm: 'Exportar ou apagar os dados de um titular', keyPrefix: 'Prefixo da chave do titular',
      prefixHint: 'Pelo menos 6 caracteres do prefixo (ex.: lp_live_1a2b3c).', subjectEmail: 'E-mail do titular (conferência)',
      dsarKind: 'Pedido', exportBtn: 'Exportar dados', eraseBtn: 'Apagar dados',
      eraseConfirm: 'Apagar os dados do tenant da chave {prefix}? Todas as chaves dele deixam de funcionar na hora; a exclusão definitiva ocorre em 30 dias.',
      yesErase: 'Apagar', cancel: 'Cancelar',
      exported: 'Pedido {id}: pacote de dados pronto.', save: 'Salvar pacote (JSON)',
      erased: 'Pedido {id}: dados apagados (soft); exclusão definitiva em {date}.',
      refreshes: 'Atualizações das fontes de torres', refreshList: 'Registros de atualização', when: 'Quando', source: 'Fonte', format: 'Formato', changed: 'Mudou',
      rows: 'Linhas', towers: 'Torres', rejected: 'Recusadas', duration: 'Duração', error: 'Erro', none: 'Nenhum registro.',
      audit: 'Auditoria (todos os tenants)', auditEntries: 'Entradas de auditoria', action: 'Ação', actionHint: 'Nome exato, ex.: admin.key.issue. Vazio: todas.',
      tenantFilter: 'Tenant (id)', filter: 'Filtrar', older: 'Mais antigas', newest: 'Mais recentes',
      actor: 'Chave', email2: 'E-mail', route: 'Rota', params: 'Parâmetros', ip: 'IP',
    },
    en: {
      title: 'Admin',
      notAdmin: 'This screen needs an admin key (lp_adm_).',
      totpNote: 'Actions that change data ask for the admin\'s 6-digit TOTP code and a justification, written to the audit log.',
      ready: 'Readiness', checks: 'Readiness checks', status: 'Status', state: 'State', offline: 'No outbound calls', version: 'Version',
      check: 'Check', result: 'Result', yes: 'yes', no: 'no',
      maturity: 'Platform', dependency: 'Dependency', kind: 'Kind', detail: 'Detail',
      singleBinary: 'Single binary', cloudRequired: 'Needs a cloud service', llm: 'Language model provider',
      llmActive: 'active: {provider}', llmInactive: 'inactive: {reason}',
      issue: 'Issue a key', tier: 'Tier', email: 'Owner e-mail', owner: 'Owner (organisation or person)', role: 'Key kind',
      roleTenant: 'customer (lp_live_)', roleInternal: 'internal automation (lp_int_)',
      justification: 'Justification', justHint: '10 to 1000 characters; goes to the audit log.',
      issueBtn: 'Issue key', issued: 'Key issued for tenant {tenant}.',
      secret: 'New API key', secretNote: 'Copy it now: it is shown this once.', copy: 'Copy key', copied: 'Key copied.',
      keyId: 'Key id', prefix: 'Prefix', tenant: 'Tenant',
      tenants: 'Tenants',
      tenantList: 'Tenants (by id)', keysCol: 'Keys', keyCounts: '{active} active, {grace} in grace, {revoked} revoked',
      created: 'Created', erasedCol: 'Erased', erasedOn: 'yes, on {date}; final deletion {hard}', observationsCol: 'Observations',
      obsCounts: '{links} links, {cells} signal samples', brandName: 'Branding name', ownerCol: 'Owner', emailCol: 'E-mail', choose: 'Use for branding',
      chooseLabel: 'Use tenant {tenant} in the branding form', chosen: 'Tenant {tenant} chosen for branding.',
      firstPage: 'First', prevPage: 'Previous', nextPage: 'Next', noTenants: 'No tenants.',
      branding: 'White-label branding',
      tenantsNote: 'Choose a tenant in the list or give its id (t_…). Saving replaces the whole branding: empty fields are cleared.',
      tenantId: 'Tenant id', displayName: 'Display name', color: 'Primary colour', colorHint: '#RRGGBB, or empty for the neutral colour.',
      support: 'Support contact', footer: 'Report footer', logo: 'Logo (PNG or SVG, up to 256 KiB)',
      brandBtn: 'Save branding', branded: 'Branding of tenant {tenant} saved.',
      logoTooBig: 'The logo is {size}; the most is 256 KiB.',
      dsar: 'Data-subject requests (LGPD)', overdue: 'Overdue requests', overdueCount: '{count} overdue request(s).',
      request: 'Request', type: 'Type', reason: 'Reason', subject: 'Subject', due: 'Due', requestedBy: 'Requested by',
      answer_due: 'answer overdue', hard_delete_due: 'hard delete overdue', export: 'export', erase: 'erase',
      self: 'subject', admin: 'admin', received: 'received', processing: 'processing',
      dsarForm: 'Export or erase a subject\'s data', keyPrefix: 'Subject key prefix',
      prefixHint: 'At least 6 characters of the prefix (e.g. lp_live_1a2b3c).', subjectEmail: 'Subject e-mail (check)',
      dsarKind: 'Request', exportBtn: 'Export data', eraseBtn: 'Erase data',
      eraseConfirm: 'Erase the data of the tenant of key {prefix}? All its keys stop working at once; the final deletion happens within 30 days.',
      yesErase: 'Erase', cancel: 'Cancel',
      exported: 'Request {id}: data bundle ready.', save: 'Save bundle (JSON)',
      erased: 'Request {id}: data soft-erased; final deletion due {date}.',
      refreshes: 'Tower source refreshes', refreshList: 'Refresh records', when: 'When', source: 'Source', format: 'Format', changed: 'Changed',
      rows: 'Rows', towers: 'Towers', rejected: 'Rejected', duration: 'Duration', error: 'Error', none: 'No records.',
      audit: 'Audit log (every tenant)', auditEntries: 'Audit entries', action: 'Action', actionHint: 'Exact name, e.g. admin.key.issue. Empty: all.',
      tenantFilter: 'Tenant (id)', filter: 'Filter', older: 'Older', newest: 'Newest',
      actor: 'Key', email2: 'E-mail', route: 'Route', params: 'Parameters', ip: 'IP',
    },
  },

  async render(root, ctx) {
    const t = ctx.t;
    const ac = new AbortController();
    const opt = { signal: ac.signal };
    if (!ctx.session || !ctx.session.admin) {
      root.append(h('p', { class: 'fk-note' }, t('notAdmin')));
      return () => ac.abort();
    }
    root.append(h('p', null, t('totpNote')));
    const yesNo = (b) => t(b ? 'yes' : 'no');

    // stepUp asks for the TOTP code and runs call(headers); a cancelled
    // prompt does nothing.
    const stepUp = async (call) => {
      let code;
      try {
        code = await ctx.adminTotp();
      } catch {
        return null;
      }
      return call({ 'X-Admin-Totp': code });
    };

    // Readiness and platform facts.
    const readyBox = h('div');
    const matBox = h('div');
    root.append(card(t('ready'), readyBox, matBox));
    const showReady = (r) => {
      fill(readyBox, facts([[t('status'), h('span', { 'data-ready': r.status }, r.status)], [t('state'), r.state],
        [t('offline'), yesNo(r.offline)], [t('version'), r.version]]),
      table(t('checks'), [{ label: t('check'), cell: (e) => e[0] }, { label: t('result'), cell: (e) => e[1] }], Object.entries(r.checks).sort()));
    };
    ctx.api('GET', '/health/ready', opt).then(showReady).catch((err) => {
      // A 503 carries the same report with the failing checks.
      if (err && err.body && err.body.checks) showReady(err.body);
      else showError(ctx, readyBox, err);
    });
    ctx.api('GET', '/platform/maturity', opt).then((m) => {
      const llm = m.hosting_portability.dependencies.llm_inference;
      fill(matBox, 
        table(t('maturity'), [
          { label: t('dependency'), cell: (d) => d.name }, { label: t('kind'), cell: (d) => d.kind },
          { label: t('status'), cell: (d) => d.status }, { label: t('detail'), cell: (d) => d.detail || '–' },
        ], m.dependencies),
        facts([[t('singleBinary'), yesNo(m.hosting_portability.single_binary)], [t('cloudRequired'), yesNo(m.hosting_portability.cloud_services_required)],
          [t('llm'), llm.active ? t('llmActive', { provider: llm.provider || '' }) : t('llmInactive', { reason: llm.reason || '' })]]));
    }).catch((err) => showError(ctx, matBox, err));

    // Issue a key.
    const tier = select(tiers.map((x) => [x, x]), { name: 'tier' }, 'Pro');
    const owner = h('input', { type: 'text', name: 'owner', maxlength: '200', required: true, autocomplete: 'organization' });
    const email = h('input', { type: 'email', name: 'email', maxlength: '254', required: true, autocomplete: 'email' });
    const role = select([['tenant', t('roleTenant')], ['internal', t('roleInternal')]], { name: 'role' }, 'tenant');
    const just = h('textarea', { name: 'justification', minlength: '10', maxlength: '1000', rows: '2', required: true });
    const issueBtn = h('button', { type: 'submit' }, t('issueBtn'));
    const issueErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const issueOut = h('div');
    const issueForm = h('form', { class: 'fk-form', novalidate: true, 'data-form': 'issue-key' },
      row(t('tier'), tier), row(t('owner'), owner), row(t('email'), email), row(t('role'), role),
      row(t('justification'), just, t('justHint')), h('div', { class: 'fk-actions' }, issueBtn));
    root.append(card(t('issue'), issueForm, issueErr, issueOut));
    issueForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      issueErr.replaceChildren();
      issueOut.replaceChildren();
      try {
        const body = { tier: tier.value, owner: owner.value.trim(), email: email.value.trim(), role: role.value, justification: just.value.trim() };
        const k = await busy(issueBtn, () => stepUp((headers) => ctx.api('POST', '/admin/keys', { ...opt, json: body, headers })));
        if (!k) return;
        fill(issueOut, h('p', { role: 'status' }, t('issued', { tenant: k.tenant_id })),
          facts([[t('tenant'), k.tenant_id], [t('keyId'), k.key_id], [t('prefix'), k.prefix], [t('tier'), k.tier]]),
          secret(ctx, t('secret'), k.api_key, t('secretNote'), t('copy'), t('copied')));
        issueOut.querySelector('input').focus();
      } catch (err) {
        showError(ctx, issueErr, err);
      }
    });

    // Tenant branding.
    const tenantId = h('input', { type: 'text', name: 'tenant_id', maxlength: '100', required: true, autocomplete: 'off', spellcheck: 'false' });
    const displayName = h('input', { type: 'text', name: 'display_name', maxlength: '100' });
    const color = h('input', { type: 'text', name: 'primary_color', maxlength: '7', pattern: '#[0-9A-Fa-f]{6}', placeholder: '#0A7F3C', spellcheck: 'false' });
    const support = h('input', { type: 'text', name: 'support_contact', maxlength: '200' });
    const footer = h('input', { type: 'text', name: 'report_footer', maxlength: '200' });
    const logo = h('input', { type: 'file', name: 'logo', accept: 'image/png,image/svg+xml,.png,.svg' });
    const brandJust = h('textarea', { name: 'justification', minlength: '10', maxlength: '1000', rows: '2', required: true });
    const brandBtn = h('button', { type: 'submit' }, t('brandBtn'));
    const brandErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const brandOut = h('div', { 'aria-live': 'polite' });
    const brandHead = uid('fk-h');
    const brandForm = h('form', { class: 'fk-form', novalidate: true, 'aria-labelledby': brandHead, 'data-form': 'branding' },
      h('p', { class: 'fk-hint' }, t('tenantsNote')),
      row(t('tenantId'), tenantId), row(t('displayName'), displayName), row(t('color'), color, t('colorHint')),
      row(t('support'), support), row(t('footer'), footer), row(t('logo'), logo),
      row(t('justification'), brandJust, t('justHint')), h('div', { class: 'fk-actions' }, brandBtn));
    // The tenant list: pages by the API's opaque cursor; cursors[i] is the
    // cursor of page i (null: the first page).
    const tenantBox = h('div', { 'data-part': 'tenants' });
    const chosenOut = h('p', { class: 'fk-hint', 'aria-live': 'polite' });
    const cursors = [null];
    let tenantAt = 0; // the page shown
    const erasedCell = (x) => {
      if (!x.erased) return t('no');
      if (!x.erased_at) return t('yes');
      return t('erasedOn', { date: iso(ctx, x.erased_at), hard: iso(ctx, x.hard_delete_at) });
    };
    const chooseTenant = (id) => {
      tenantId.value = id;
      fill(chosenOut, t('chosen', { tenant: id }));
      tenantId.focus();
    };
    const loadTenants = async (page) => {
      const query = { limit: String(tenantPage) };
      if (cursors[page]) query.cursor = cursors[page];
      try {
        const p = await ctx.api('GET', '/admin/tenants', { ...opt, query });
        cursors.length = page + 1;
        tenantAt = page;
        if (p.next_cursor !== null) cursors.push(p.next_cursor);
        const nav = h('div', { class: 'fk-actions' });
        const go = (label, to, act) => {
          const b = h('button', { type: 'button', class: 'fk-secondary', 'data-action': act }, label);
          b.addEventListener('click', () => busy(b, () => loadTenants(to)));
          nav.append(b);
        };
        if (page > 0) go(t('firstPage'), 0, 'tenants-first');
        if (page > 1) go(t('prevPage'), page - 1, 'tenants-previous');
        if (p.next_cursor !== null) go(t('nextPage'), page + 1, 'tenants-next');
        fill(tenantBox, p.tenants.length === 0 ? h('p', null, t('noTenants')) : table(t('tenantList'), [
          { label: t('tenantId'), cell: (x) => h('code', { 'data-tenant-id': x.tenant_id }, x.tenant_id) },
          { label: t('ownerCol'), cell: (x) => h('span', { 'data-owner': x.tenant_id }, x.owner || '–') },
          { label: t('emailCol'), cell: (x) => h('span', { 'data-email': x.tenant_id }, x.email || '–') },
          { label: t('tier'), cell: (x) => x.tier },
          { label: t('keysCol'), cell: (x) => t('keyCounts', { active: ctx.fmt.num(x.keys.active, 0), grace: ctx.fmt.num(x.keys.in_grace, 0), revoked: ctx.fmt.num(x.keys.revoked, 0) }) },
          { label: t('created'), cell: (x) => iso(ctx, x.created_at) },
          { label: t('erasedCol'), cell: erasedCell },
          { label: t('brandName'), cell: (x) => x.display_name || '–' },
          { label: t('observationsCol'), cell: (x) => t('obsCounts', { links: ctx.fmt.num(x.observations.link_observations, 0), cells: ctx.fmt.num(x.observations.cell_signal_samples, 0) }) },
          { label: t('branding'), cell: (x) => {
            const b = h('button', { type: 'button', class: 'fk-secondary', 'data-action': 'choose-tenant', 'data-tenant': x.tenant_id, 'aria-label': t('chooseLabel', { tenant: x.tenant_id }) }, t('choose'));
            b.addEventListener('click', () => chooseTenant(x.tenant_id));
            return b;
          } },
        ], p.tenants), nav);
      } catch (err) {
        showError(ctx, tenantBox, err);
      }
    };
    root.append(card(t('tenants'), tenantBox, chosenOut, h('h3', { id: brandHead }, t('branding')), brandForm, brandErr, brandOut));
    loadTenants(0);
    const readLogo = async () => {
      const f = logo.files && logo.files[0];
      if (!f) return null;
      if (f.size > maxLogoBytes) throw new Error(t('logoTooBig', { size: ctx.fmt.bytes(f.size) }));
      const bytes = new Uint8Array(await f.arrayBuffer());
      let bin = '';
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      const svg = f.type === 'image/svg+xml' || f.name.toLowerCase().endsWith('.svg');
      return { media_type: svg ? 'image/svg+xml' : 'image/png', data_base64: btoa(bin) };
    };
    brandForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      brandErr.replaceChildren();
      brandOut.replaceChildren();
      try {
        const body = {
          display_name: displayName.value.trim(), primary_color: color.value.trim(), support_contact: support.value.trim(),
          report_footer: footer.value.trim(), logo: await readLogo(), justification: brandJust.value.trim(),
        };
        const id = tenantId.value.trim();
        const b = await busy(brandBtn, () => stepUp((headers) => ctx.api('PUT', `/admin/tenants/${encodeURIComponent(id)}/branding`, { ...opt, json: body, headers })));
        if (b) {
          fill(brandOut, h('p', { role: 'status' }, t('branded', { tenant: b.tenant_id })));
          loadTenants(tenantAt); // the list shows the new display name
        }
      } catch (err) {
        showError(ctx, brandErr, err);
      }
    });

    // Privacy requests.
    const overdueBox = h('div', { 'data-part': 'overdue' });
    const loadOverdue = async () => {
      try {
        const o = await ctx.api('GET', '/admin/dsar/overdue', opt);
        fill(overdueBox, h('p', null, t('overdueCount', { count: ctx.fmt.num(o.count, 0) })),
          o.requests.length ? table(t('overdue'), [
            { label: t('request'), cell: (r) => r.dsar_request_id },
            { label: t('type'), cell: (r) => t(r.request_type) },
            { label: t('status'), cell: (r) => t(r.status) },
            { label: t('reason'), cell: (r) => t(r.reason) },
            { label: t('subject'), cell: (r) => `${r.subject} (${r.key_prefix})` },
            { label: t('requestedBy'), cell: (r) => t(r.requested_by) },
            { label: t('due'), cell: (r) => epoch(ctx, r.reason === 'hard_delete_due' ? r.erase_scheduled_at : r.due_by) },
          ], o.requests) : null);
      } catch (err) {
        showError(ctx, overdueBox, err);
      }
    };
    const prefix = h('input', { type: 'text', name: 'api_key_prefix', minlength: '6', required: true, autocomplete: 'off', spellcheck: 'false' });
    const subjEmail = h('input', { type: 'email', name: 'confirm_subject_email', required: true, autocomplete: 'off' });
    const dsarJust = h('textarea', { name: 'justification', minlength: '10', maxlength: '1000', rows: '2', required: true });
    const exportBtn = h('button', { type: 'button', 'data-action': 'dsar-export' }, t('exportBtn'));
    const eraseBtn = h('button', { type: 'button', class: 'fk-danger', 'data-action': 'dsar-erase' }, t('eraseBtn'));
    const dsarErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const dsarOut = h('div', { 'aria-live': 'polite', 'data-part': 'dsar-out' });
    const dsarHead = uid('fk-h');
    root.append(card(t('dsar'), h('h3', null, t('overdue')), overdueBox,
      h('h3', { id: dsarHead }, t('dsarForm')),
      h('form', { class: 'fk-form', novalidate: true, 'aria-labelledby': dsarHead, 'data-form': 'dsar' },
        row(t('keyPrefix'), prefix, t('prefixHint')), row(t('subjectEmail'), subjEmail),
        row(t('justification'), dsarJust, t('justHint')), h('div', { class: 'fk-actions' }, exportBtn, eraseBtn)),
      dsarErr, dsarOut));
    const dsar = async (button, kind) => {
      dsarErr.replaceChildren();
      dsarOut.replaceChildren();
      const p = prefix.value.trim();
      if (kind === 'erase' && !(await confirm(ctx, t('eraseConfirm', { prefix: p }), t('yesErase'), t('cancel')))) return;
      try {
        const body = { justification: dsarJust.value.trim(), confirm_subject_email: subjEmail.value.trim() };
        const res = await busy(button, () => stepUp((headers) => ctx.api('POST', `/admin/dsar/${encodeURIComponent(p)}/${kind}`, { ...opt, json: body, headers })));
        if (!res) return;
        if (kind === 'export') {
          const save = h('button', { type: 'button' }, t('save'));
          save.addEventListener('click', () => saveJSON(res, `linkplan-dsar-${res.dsar_request_id}.json`));
          fill(dsarOut, h('p', { role: 'status' }, t('exported', { id: res.dsar_request_id })), h('div', { class: 'fk-actions' }, save));
        } else {
          fill(dsarOut, h('p', { role: 'status' }, t('erased', { id: res.dsar_request_id, date: epoch(ctx, res.erase_scheduled_at) })));
        }
        loadOverdue();
      } catch (err) {
        showError(ctx, dsarErr, err);
      }
    };
    exportBtn.addEventListener('click', () => dsar(exportBtn, 'export'));
    eraseBtn.addEventListener('click', () => dsar(eraseBtn, 'erase'));
    loadOverdue();

    // Tower source refreshes.
    const refBox = h('div');
    root.append(card(t('refreshes'), refBox));
    ctx.api('GET', '/admin/towers/refreshes', { ...opt, query: { limit: '20' } }).then((l) => {
      fill(refBox, l.refreshes.length === 0 ? h('p', null, t('none')) : table(t('refreshList'), [
        { label: t('when'), cell: (r) => epoch(ctx, r.time_unix) },
        { label: t('source'), cell: (r) => r.source },
        { label: t('format'), cell: (r) => r.format || '–' },
        { label: t('changed'), cell: (r) => yesNo(r.changed) },
        { label: t('rows'), cell: (r) => ctx.fmt.num(r.rows, 0), num: true },
        { label: t('towers'), cell: (r) => ctx.fmt.num(r.towers, 0), num: true },
        { label: t('rejected'), cell: (r) => ctx.fmt.num(r.rejected, 0), num: true },
        { label: t('duration'), cell: (r) => ctx.fmt.unit(r.duration_ms, 'ms', 0), num: true },
        { label: t('error'), cell: (r) => r.error || '–' },
      ], l.refreshes));
    }).catch((err) => showError(ctx, refBox, err));

    // Admin audit.
    const action = h('input', { type: 'text', name: 'action', maxlength: '100', autocomplete: 'off', spellcheck: 'false' });
    const tenantFilter = h('input', { type: 'text', name: 'tenant_id', maxlength: '100', autocomplete: 'off', spellcheck: 'false' });
    const filter = h('button', { type: 'submit' }, t('filter'));
    const auditBox = h('div');
    const auditForm = h('form', { class: 'fk-inline', role: 'search' }, row(t('action'), action, t('actionHint')), row(t('tenantFilter'), tenantFilter), h('div', { class: 'fk-actions' }, filter));
    root.append(card(t('audit'), auditForm, auditBox));
    const loadAudit = auditPager(ctx, {
      box: auditBox, path: '/admin/audit', opt, pageSize: auditPage,
      filters: () => {
        const q = {};
        if (action.value.trim()) q.action = action.value.trim();
        if (tenantFilter.value.trim()) q.tenant_id = tenantFilter.value.trim();
        return q;
      },
      caption: t('auditEntries'), empty: t('none'), newest: t('newest'), older: t('older'),
      columns: [
        { label: t('when'), cell: (e) => iso(ctx, e.time) },
        { label: t('action'), cell: (e) => h('code', null, e.action) },
        { label: t('tenant'), cell: (e) => e.tenant_id || '–' },
        { label: t('actor'), cell: (e) => e.actor_key || '–' },
        { label: t('email2'), cell: (e) => e.actor_email || '–' },
        { label: t('route'), cell: (e) => e.route || '–' },
        { label: t('params'), cell: (e) => Object.entries(e.params || {}).map(([k, v]) => `${k}=${v}`).join('; ') || '–' },
        { label: t('ip'), cell: (e) => e.ip || '–' },
      ],
    });
    auditForm.addEventListener('submit', (ev) => { ev.preventDefault(); busy(filter, () => loadAudit(null)); });
    loadAudit(null);

    return () => ac.abort();
  },
};
