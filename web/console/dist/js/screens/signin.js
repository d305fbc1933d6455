// signin.js: sign in with an API key, or through the configured single
// sign-on (hosted OIDC login) when the appliance has one.

export default {
  id: 'signin',
  nav: false,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Entrar',
      intro: 'Entre com a chave de API do seu locatário. A chave fica só nesta aba do navegador.',
      keyLabel: 'Chave de API',
      keyHint: 'Cole a chave completa (começa com lp_).',
      submit: 'Entrar',
      sso: 'Entrar com SSO',
      ssoIntro: 'Ou entre pelo provedor de identidade da sua organização.',
      keyRequired: 'Informe a chave de API.',
      working: 'Verificando…',
    },
    en: {
      title: 'Sign in',
      intro: "Sign in with your tenant's API key. The key stays in this browser tab only.",
      keyLabel: 'API key',
      keyHint: 'Paste the whole key (it starts with lp_).',
      submit: 'Sign in',
      sso: 'Sign in with SSO',
      ssoIntro: "Or sign in through your organisation's identity provider.",
      keyRequired: 'Type the API key.',
      working: 'Checking…',
    },
  },
  render(root, ctx) {
    const { el, field, errorBox } = ctx.ui;
    const input = el('input', { type: 'password', name: 'api_key', autocomplete: 'off', spellcheck: 'false', required: true, id: 'signin-key' });
    const submit = el('button', { type: 'submit', class: 'primary', id: 'signin-submit', text: ctx.t('submit') });
    const out = el('div', { class: 'signin-out', 'aria-live': 'polite' });
    const form = el('form', { class: 'card signin', novalidate: true },
      el('p', { text: ctx.t('intro') }),
      field(ctx.t('keyLabel'), input, ctx.t('keyHint')),
      el('div', { class: 'actions' }, submit),
      out);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      out.replaceChildren();
      const key = input.value.trim();
      if (!key) {
        out.append(errorBox({ message: ctx.t('keyRequired'), field: 'api_key' }, ctx.t));
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        return;
      }
      submit.disabled = true;
      submit.textContent = ctx.t('working');
      try {
        await ctx.signIn({ apiKey: key });
      } catch (err) {
        input.setAttribute('aria-invalid', 'true');
        out.append(errorBox(err, ctx.t));
        submit.disabled = false;
        submit.textContent = ctx.t('submit');
        input.focus();
      }
    });
    root.append(form);
    const sso = el('div', { class: 'card sso', hidden: true },
      el('p', { text: ctx.t('ssoIntro') }),
      el('a', { class: 'button', href: '/auth/oidc/login', id: 'signin-sso', text: ctx.t('sso') }));
    root.append(sso);
    ctx.ssoAvailable().then((yes) => { sso.hidden = !yes; });
    input.focus();
  },
};
