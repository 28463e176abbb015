import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { AuthenticatedOrganization } from "../auth/authenticated-organization";
import { ChainActionsStore } from "../ledger/chain-actions.store";
import { toActionView } from "../ledger/dto/action-view.dto";
import { eventKeyOf } from "../registry";
import { ApiError } from "../common/errors/api-error";
import { uint64Json } from "../common/validation/uint64";
import type { EventViewDto } from "./dto/event-view.dto";
import { EventErrors } from "./events.errors";
import { EventsStore } from "./events.store";

@Injectable()
export class EventsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly actions: ChainActionsStore,
  ) {}

  async view(organization: AuthenticatedOrganization, eventId: string): Promise<EventViewDto> {
    const events = new EventsStore(this.dataSource.manager);
    const event = await events.findByOrganizationAndEventId(organization.id, eventId);
    if (!event) throw new ApiError(404, EventErrors.notFound(eventId));
    const actions = await this.actions.listForEvent(event.id);
    const ticketsSold = await events.ticketsSoldOf(event);
    return {
      eventId: event.eventId,
      eventName: event.name,
      ticketeerId: organization.ticketeerId,
      ticketeerName: event.ticketeerName,
      currency: event.currency,
      shopUrl: event.shopUrl,
      imageUrl: event.imageUrl,
      description: event.description,
      ticketImageUrl: event.ticketImageUrl,
      latitude: event.latitude,
      longitude: event.longitude,
      startTime: uint64Json(event.startTime),
      endTime: uint64Json(event.endTime),
      callbackUrl: event.callbackUrl,
      callbackFailingSince: event.callbackFailingSince?.toISOString() ?? null,
      callbackDisabledAt: event.callbackDisabledAt?.toISOString() ?? null,
      ticketsSold: uint64Json(ticketsSold),
      cancelled: event.cancelledAt !== null,
      cancelledAt: event.cancelledAt?.toISOString() ?? null,
      chain: {
        eventIndex: uint64Json(event.eventIndex),
        eventKey: eventKeyOf(organization.ticketeerId, event.eventId),
        registered: actions.some((action) => action.kind === "newEvent" && action.status === "confirmed"),
        cancelled: actions.some((action) => action.kind === "cancelledEvent" && action.status === "confirmed"),
      },
      actions: actions.map(toActionView),
    };
  }
}
