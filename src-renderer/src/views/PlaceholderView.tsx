export function PlaceholderView({ title, hint }: { title: string; hint: string }) {
  return (
    <section aria-labelledby="view-title">
      <h1 id="view-title">{title}</h1>
      <p className="muted">{hint}</p>
    </section>
  );
}
