// Vite turns `*.module.css` into an object of generated class names.
declare module '*.module.css' {
  const classes: Readonly<Record<string, string>>;
  export default classes;
}
