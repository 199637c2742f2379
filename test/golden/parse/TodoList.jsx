import { useState } from 'react';

// A todo list: add, toggle, remove; kept in component state.
export default function TodoList({ initial = [] }) {
  const [items, setItems] = useState(initial);
  const [text, setText] = useState('');

  function add() {
    if (!text.trim()) return;
    setItems([...items, { id: Date.now(), text, done: false }]);
    setText('');
  }

  const toggle = (id) => setItems(items.map((i) => (i.id === id ? { ...i, done: !i.done } : i)));
  const remove = (id) => setItems(items.filter((i) => i.id !== id));

  return (
    <div>
      <input value={text} onChange={(e) => setText(e.target.value)} />
      <button onClick={add}>Add</button>
      <ul>
        {items.map((i) => (
          <li key={i.id} className={i.done ? 'done' : ''}>
            <span onClick={() => toggle(i.id)}>{i.text}</span>
            <button onClick={() => remove(i.id)}>×</button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export class TodoStore {
  constructor() {
    this.items = [];
  }

  add(text) {
    this.items.push({ id: this.items.length + 1, text, done: false });
  }
}
