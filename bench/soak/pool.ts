/** A set with O(1) add, remove and random pick, for choosing idle tickets under load. */
export class Pool<T> {
  private readonly items: T[] = [];
  private readonly positions = new Map<T, number>();

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    if (this.positions.has(item)) return;
    this.positions.set(item, this.items.length);
    this.items.push(item);
  }

  remove(item: T): void {
    const position = this.positions.get(item);
    if (position === undefined) return;
    const last = this.items.pop() as T;
    this.positions.delete(item);
    if (last !== item) {
      this.items[position] = last;
      this.positions.set(last, position);
    }
  }

  /** Removes and returns a random item, or undefined when empty. */
  take(): T | undefined {
    if (this.items.length === 0) return undefined;
    const item = this.items[Math.floor(Math.random() * this.items.length)];
    this.remove(item);
    return item;
  }

  /** Removes every item `test` holds for; how many. */
  removeWhere(test: (item: T) => boolean): number {
    const gone = this.items.filter(test);
    for (const item of gone) this.remove(item);
    return gone.length;
  }
}
