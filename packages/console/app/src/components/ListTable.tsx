import type { ComponentChildren } from 'preact'

/**
 * A table of a list: its caption (for screen readers), its column headings and its rows; nothing
 * without rows (the list's states say why). On a phone each row becomes a card whose cells carry
 * their column's name (`data-label`).
 */
export function ListTable({
  caption,
  columns,
  children,
}: {
  caption: string
  columns: readonly string[]
  children: ComponentChildren
}) {
  if (Array.isArray(children) && children.length === 0) return null
  return (
    <div class="table-wrap">
      <table class="list">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}
