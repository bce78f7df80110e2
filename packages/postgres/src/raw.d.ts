// `import text from './file.sql?raw'`: the file's content as a string (see tsup.config.ts).
declare module '*?raw' {
  const text: string
  export default text
}
