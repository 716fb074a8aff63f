/** A two-column table of names and values (a value that is not text is shown as JSON). */
export function KeyValues(props: { rows: ReadonlyArray<readonly [string, unknown]> }) {
  return (
    <table className="kv">
      <tbody>
        {props.rows.map(([name, value]) => (
          <tr key={name}>
            <td>{name}</td>
            <td>
              <pre>{typeof value === 'string' ? value : JSON.stringify(value, null, 1)}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
