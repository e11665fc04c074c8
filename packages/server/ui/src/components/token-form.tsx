/** Asks for the bearer token when the server refused the request (401). */
export function TokenForm({ onToken }: { onToken: (token: string) => void }) {
  return (
    <form
      class="token-form"
      onSubmit={(e) => {
        e.preventDefault();
        const value = new FormData(e.currentTarget).get('token');
        if (typeof value === 'string' && value.trim() !== '') onToken(value.trim());
      }}
    >
      <p>
        This server needs a token (the one given to <code>troupe web --token</code>).
      </p>
      <label for="token-input">Token</label>
      <input id="token-input" name="token" type="password" autocomplete="off" />
      <button type="submit" class="primary">
        Use token
      </button>
    </form>
  );
}
